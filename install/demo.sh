#!/usr/bin/env bash
# The main job on a demo repository: a generated JP conversation committed
# through the filter. Shows the small committed events.json and the blobs.
# Needs git-jpblob on PATH (install/setup.sh puts it there).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(command -v git-jpblob) || { echo "git-jpblob is not on PATH; run install/setup.sh" >&2; exit 1; }
demo=${JPBLOB_DEMO_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/jpblob-demo-XXXXXX")}
conv=.jp/conversations/17758406187-demo-conversation

rm -rf "$demo" && mkdir -p "$demo" && cd "$demo"
git init -q
git config user.name >/dev/null || git config user.name "jpblob demo"
git config user.email >/dev/null || git config user.email "demo@example.com"

# The filter, the diff driver, .gitattributes and the pre-commit hook; --local
# keeps the demo out of your global git config.
git jpblob install --local

# A conversation in today's JP format: the assistant reads this project's
# own sources, so tool outputs are real text, base64 in events.json.
mkdir -p "$conv"
python3 - "$root" "$conv/events.json" <<'PY'
import base64, glob, json, os, sys
root, out = sys.argv[1], sys.argv[2]
b64 = lambda s: base64.b64encode(s.encode() if isinstance(s, str) else s).decode()
events = [{"timestamp": "2026-11-22 10:00:00.000001", "type": "turn_start"},
          {"timestamp": "2026-11-22 10:00:00.000002", "type": "chat_request",
           "content": "Walk me through the core library of git-jpblob."}]
# core/ has a folder a room (docs/ARCHITECTURE.md): every source below it.
files = sorted(glob.glob(os.path.join(root, "core", "**", "*.[ch]pp"), recursive=True))
if not files:
    sys.exit(f"demo: no sources under {root}/core to read")
for i, path in enumerate(files):
    rel = os.path.relpath(path, root)
    call = f"toolu_{i:04d}"
    events.append({"timestamp": f"2026-11-22 10:00:{i:02d}.100000", "type": "tool_call_request",
                   "id": call, "name": "fs_read_file", "arguments": {"path": b64(rel)}})
    events.append({"timestamp": f"2026-11-22 10:00:{i:02d}.200000", "type": "tool_call_response",
                   "id": call, "content": b64("```cpp\n" + open(path).read() + "\n```\n"),
                   "is_error": False})
# The same file read twice: one blob serves both.
events.append(dict(events[-1], id="toolu_again", timestamp="2026-11-22 10:01:00.000000"))
events.append({"timestamp": "2026-11-22 10:01:01.000000", "type": "chat_response",
               "message": f"I read {len(files)} files; the store is content-addressed."})
with open(out, "w") as f:
    json.dump(events, f, indent=2)
    f.write("\n")
PY
echo '{"title":"Walk through the core library"}' > "$conv/metadata.json"
cp "$conv/events.json" "$demo/.original-events.json"

git add .gitattributes "$conv"   # clean moves the payloads to .jp/blobs
git commit -qm "A JP conversation, committed through git-jpblob"   # the hook stages the blobs

working=$(wc -c < "$conv/events.json")
committed=$(git cat-file -s "HEAD:$conv/events.json")
blob_files=$(git ls-tree -r --name-only HEAD .jp/blobs | wc -l)
blob_bytes=$(git ls-tree -r -l HEAD .jp/blobs | awk '{s+=$4} END {print s}')
if [ "$blob_files" -eq 0 ]; then
  echo "demo: the commit holds no blob file; the filter or the hook did not run" >&2
  exit 1
fi
cat <<REPORT

Demo repository: $demo

events.json in the work tree:   $working bytes (inline base64 tool output)
events.json as committed:       $committed bytes (references only)
blob files committed:           $blob_files files, $blob_bytes bytes of gzip in .jp/blobs/

The committed events.json (git show HEAD:$conv/events.json), first tool call:
REPORT
committed_text=$(git show "HEAD:$conv/events.json")
awk '/"tool_call_request"/ {p = 1} p {print} p && /"is_error"/ {exit}' <<<"$committed_text"
echo
echo "The blob files (git ls-tree -r --name-only HEAD .jp/blobs), first 5:"
tree_names=$(git ls-tree -r --name-only HEAD .jp/blobs)
sed -n 1,5p <<<"$tree_names"
echo

# Delete and check out again: the working file comes back byte for byte.
rm "$conv/events.json"
git checkout -- "$conv/events.json"
cmp "$conv/events.json" "$demo/.original-events.json"
rm "$demo/.original-events.json"
echo "Checked out again: events.json is byte-identical to the original; git status:"
git status --short --untracked-files=no
echo "(clean)"
