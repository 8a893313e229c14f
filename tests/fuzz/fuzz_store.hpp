// A throwaway blob store in a fresh temporary folder, shared by the fuzz
// targets that transform files.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/store/blob_store.hpp"

namespace jpblob::fuzz {

inline BlobStore& store() {
  static const std::filesystem::path dir = [] {
    std::string tmpl = (std::filesystem::temp_directory_path() / "jpblob-fuzz-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    return std::filesystem::path(tmpl);
  }();
  StoreOptions options;
  options.fsync = false;  // a throwaway store
  options.compression_level = 1;
  static BlobStore s = BlobStore::for_storage(dir, dir, options);
  return s;
}

}  // namespace jpblob::fuzz
