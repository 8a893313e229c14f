// The escape for reference-shaped user data (docs/FORMAT.md, "Literal
// objects"): {"$jpblob-literal":V} stands, at a payload position, for the
// user's own value V, byte for byte.
//
// Why clean must know the form of its input (InputForm, issue 25). An
// agent's argument shaped like an encoded reference was kept as a reference
// and replaced by a blob's text on checkout, or refused by the hook for
// ever. No clean can both be idempotent on its own output and give back
// every input unless it knows which one it reads, so each caller says: the
// filter in restore mode, the merge driver and migrate read JP's form and
// wrap what smudge would interpret in a literal; the refs mode, the skip
// and the hook's re-clean of the index read the committed form. A file left
// committed in a restore-mode work tree is listed in
// `<gitdir>/jpblob/committed-form` (core/workspace/committed_form), merged
// under a lock when the filter ends, so status does not see its references
// turn into literals. Escaping in the committed form instead (marking
// clean's own references) was the other choice: it would change every
// reference ever committed and what JP with RFD 066 reads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/format/json_scan.hpp"

namespace jpblob {

inline constexpr std::string_view kLiteralKey = "$jpblob-literal";
// What clean writes before the user's value; "}" follows it.
inline constexpr std::string_view kLiteralOpen = R"({"$jpblob-literal":)";

// Whether node `i` is an object whose one and only key is `$jpblob-literal`
// (however escaped): the payload walk never looks inside its value.
bool is_literal_object(const JsonTree& tree, std::uint32_t i);

// Whether clean, reading JP's own form (InputForm::WorkTree), wraps node `i`
// standing where a reference may stand: an encoded reference (any spelling)
// or a literal that smudge would unwrap (`unwraps`).
bool wrapped_in_work_tree(const JsonTree& tree, std::uint32_t i);

// Whether smudge unwraps node `i`: exactly kLiteralOpen, a value that clean
// wraps (wrapped_in_work_tree), "}", with no other byte. Any other spelling
// is left as it is, by smudge and by clean alike, so that clean(smudge(c))
// == c holds for every committed c.
bool unwraps(const JsonTree& tree, std::uint32_t i);

// The node of a literal object's value.
std::uint32_t literal_value(const JsonTree& tree, std::uint32_t i);

// kLiteralOpen + value + "}".
void append_literal(std::string& out, std::string_view value);

}  // namespace jpblob
