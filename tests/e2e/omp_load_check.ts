// Run by session_real_client.sh with bun, beside the oh-my-pi package
// (npm: @oh-my-pi/pi-coding-agent). Loads, with oh-my-pi's own session
// loader, a session git-jpblob cleaned, its blobs placed in oh-my-pi's own
// blob folder (getBlobsDir(), below $PI_CODING_AGENT_DIR); and persists the
// original with oh-my-pi's own writer, to compare names and bytes.
//
//   bun omp_load_check.ts <original.jsonl> <cleaned.jsonl> <writer blob dir>
//
// Prints one "ok ..." line per check and exits 1 at the first that fails.
import * as fs from "node:fs";
import * as path from "node:path";
import { BlobStore } from "@oh-my-pi/pi-coding-agent/session/blob-store";
import {
	loadEntriesFromFile,
	loadSessionMessagesReadOnly,
	resolveBlobRefsInEntries,
} from "@oh-my-pi/pi-coding-agent/session/session-loader";
import { prepareEntryForPersistence } from "@oh-my-pi/pi-coding-agent/session/session-persistence";
import { getBlobsDir } from "@oh-my-pi/pi-utils";

const [original, cleaned, writerDir] = process.argv.slice(2);
const refs = (text: string) => [...new Set(text.match(/blob:sha256:[0-9a-f]{64}/g) ?? [])].sort();
function check(ok: boolean, what: string): void {
	if (!ok) {
		console.log(`FAIL ${what}`);
		process.exit(1);
	}
	console.log(`ok ${what}`);
}

const cleanedText = fs.readFileSync(cleaned, "utf8");
const cleanedRefs = refs(cleanedText);
check(cleanedRefs.length > 0, `the cleaned session references ${cleanedRefs.length} blob(s)`);
const blobsDir = getBlobsDir();
for (const ref of cleanedRefs) check(fs.existsSync(path.join(blobsDir, ref.slice(12))), `${ref.slice(12, 24)}… is in ${blobsDir}`);

// The loader oh-my-pi resumes a session with: entries, then blob refs.
const want = await loadEntriesFromFile(original);
const got = await loadEntriesFromFile(cleaned);
check(got.length === want.length && got.length > 0, `oh-my-pi loads ${got.length} entries from the cleaned session`);
await resolveBlobRefsInEntries(got, new BlobStore(blobsDir));
check(JSON.stringify(got) === JSON.stringify(want), "every entry equals the original's once oh-my-pi resolves the blobs");
check(refs(JSON.stringify(got)).length === 0, "no blob:sha256: reference is left unresolved");

// The read-only transcript view (getBlobsDir() inside): the messages a user sees.
const seen = await loadSessionMessagesReadOnly(cleaned);
const seenOriginal = await loadSessionMessagesReadOnly(original);
check(JSON.stringify(seen) === JSON.stringify(seenOriginal) && seen.length > 0,
	`loadSessionMessagesReadOnly gives the original's ${seen.length} messages, images inline`);

// oh-my-pi's writer, on the original entries: the lines it would write and
// the blobs it names are git-jpblob's, byte for byte.
const store = new BlobStore(writerDir);
const written = want.map(entry => JSON.stringify(prepareEntryForPersistence(entry, store)));
// The title slot (line 1, rewritten in place) is no entry: the writer
// writes it apart.
const cleanedLines = cleanedText.split("\n").filter(line => line.length > 0 && !line.startsWith('{"type":"title"'));
check(written.length === cleanedLines.length, `the writer gives ${written.length} lines`);
written.forEach((line, i) => check(line === cleanedLines[i], `line ${i + 1}: oh-my-pi writes the line git-jpblob committed`));
const writerBlobs = fs.readdirSync(writerDir).filter(name => /^[0-9a-f]{64}$/.test(name)).sort();
check(JSON.stringify(writerBlobs) === JSON.stringify(cleanedRefs.map(r => r.slice(12))),
	"oh-my-pi's writer stores exactly the blobs git-jpblob referenced");
for (const name of writerBlobs)
	check(Buffer.compare(fs.readFileSync(path.join(writerDir, name)), fs.readFileSync(path.join(blobsDir, name))) === 0,
		`${name.slice(0, 12)}…: the same bytes`);
