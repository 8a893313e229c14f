// Large buffers in few page faults. A conversation of 100 MB is read whole,
// and its payloads are decoded whole: on a virtual machine the kernel's
// work of mapping fresh memory a 4 KiB page at a time cost more than the
// clean that used it (docs/ARCHITECTURE.md, "Memory the kernel must map").
// Buffers of a few MiB or more are asked to be backed by 2 MiB pages where
// the kernel offers them on request (transparent huge pages, `madvise`
// mode, Debian's default), which takes one fault where 512 were taken.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

namespace jpblob {

// Makes `s` able to hold `n` bytes without reallocating, growing its
// capacity at least twofold (so a buffer filled piece by piece is copied a
// few times, not once a piece). A new allocation of 4 MiB or more is
// advised to the kernel as huge pages before anything touches it.
void reserve_large(std::string& s, std::size_t n);

// `n` bytes, not zeroed, advised as huge pages when 4 MiB or more. Throws
// std::bad_alloc as new does.
std::unique_ptr<char[]> allocate_large(std::size_t n);

}  // namespace jpblob
