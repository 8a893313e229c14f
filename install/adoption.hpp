// What install does about the documents a repository holds already, once
// the filter, the hooks and the work tree are set up. Internal to install/.
//
// - A clone made before git-jpblob was installed holds its conversations
//   in the committed reference form, which JP does not read: install puts
//   JP's form back (core/maintenance/migrate: restore_unfiltered_checkout),
//   touching only files unchanged since that checkout, and status stays
//   clean. Until 2026-11-29 install only named `git jpblob checkout`; SPEC
//   §7 asks for the way in to be whole.
// - A repository whose committed conversations hold their payloads inline
//   (no commit routes them to the filter yet) shows each modified once
//   the filter applies: its new committed form. install prints the exact
//   commands that adopt git-jpblob in one commit.
#pragma once

#include <string>
#include <vector>

#include "core/git/git_cli.hpp"

namespace jpblob {

// The lines to print (none when there is nothing to say). Never throws: a
// problem is a line of its own, and install has done its work already.
std::vector<std::string> documents_after_install(const RepoLayout& repo);

}  // namespace jpblob
