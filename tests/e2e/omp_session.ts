// Run by session_real_client.sh with bun, beside the oh-my-pi package
// (npm: @oh-my-pi/pi-coding-agent), as oh-my-pi itself would:
//
//   bun omp_session.ts write <inline.jsonl> <out.jsonl>
//     persists every entry of a session with oh-my-pi's own writer, whose
//     blob store (getBlobsDir(), below $PI_CODING_AGENT_DIR) gets each
//     image and the session a blob:sha256: reference: the session as
//     oh-my-pi writes it when it stores its images itself. The title slot
//     (line 1, which oh-my-pi rewrites in place) is copied as it is.
//   bun omp_session.ts read <original.jsonl> <session.jsonl>
//     loads a session as oh-my-pi resumes one (entries, then blob refs
//     against its own store), and checks every entry equals the original's.
//
// Prints one "ok ..." line per check and exits 1 at the first that fails.
import * as fs from "node:fs";
import { BlobStore } from "@oh-my-pi/pi-coding-agent/session/blob-store";
import {
	loadEntriesFromFile,
	loadSessionMessagesReadOnly,
	resolveBlobRefsInEntries,
} from "@oh-my-pi/pi-coding-agent/session/session-loader";
import { prepareEntryForPersistence } from "@oh-my-pi/pi-coding-agent/session/session-persistence";
import { getBlobsDir } from "@oh-my-pi/pi-utils";

const [mode, first, second] = process.argv.slice(2);
const refs = (text: string) => [...new Set(text.match(/blob:sha256:[0-9a-f]{64}/g) ?? [])];
function check(ok: boolean, what: string): void {
	if (!ok) {
		console.log(`FAIL ${what}`);
		process.exit(1);
	}
	console.log(`ok ${what}`);
}

if (mode === "write") {
	const entries = await loadEntriesFromFile(first);
	const store = new BlobStore(getBlobsDir());
	const firstLine = fs.readFileSync(first, "utf8").split("\n")[0];
	const lines = firstLine.startsWith('{"type":"title"') ? [firstLine] : [];
	for (const entry of entries) lines.push(JSON.stringify(prepareEntryForPersistence(entry, store)));
	fs.writeFileSync(second, `${lines.join("\n")}\n`);
	const written = refs(fs.readFileSync(second, "utf8"));
	check(written.length > 0, `oh-my-pi wrote ${entries.length} entries with ${written.length} blob references`);
	for (const ref of written) check(fs.existsSync(`${getBlobsDir()}/${ref.slice(12)}`), `${ref.slice(12, 24)}… is in its store`);
} else if (mode === "read") {
	const want = await loadEntriesFromFile(first);
	const got = await loadEntriesFromFile(second);
	check(got.length === want.length && got.length > 0, `oh-my-pi loads ${got.length} entries`);
	await resolveBlobRefsInEntries(got, new BlobStore(getBlobsDir()));
	check(JSON.stringify(got) === JSON.stringify(want), "every entry equals the original's, every image whole");
	check(refs(JSON.stringify(got)).length === 0, "no blob:sha256: reference is left unresolved");
	const seen = await loadSessionMessagesReadOnly(second);
	const seenOriginal = await loadSessionMessagesReadOnly(first);
	check(JSON.stringify(seen) === JSON.stringify(seenOriginal) && seen.length > 0,
		`loadSessionMessagesReadOnly gives the original's ${seen.length} messages`);
} else {
	check(false, `unknown mode ${mode}: write or read`);
}
