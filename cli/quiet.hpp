// -q: the command prints no progress and no notes, only what it was asked
// for, warnings and errors. Set once, by the runner, before the command runs.
#pragma once

#include <string_view>

namespace jpblob {

void set_quiet(bool quiet);
bool quiet();
// A line the user need not act on ("git-jpblob: <line>" on stderr): not
// printed under -q.
void note(std::string_view line);

}  // namespace jpblob
