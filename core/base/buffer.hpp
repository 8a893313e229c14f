// Large buffers in few page faults: memory the kernel must map. A
// conversation of 100 MB is read whole, and its payloads are decoded whole:
// on a virtual machine the kernel's work of mapping fresh memory a 4 KiB
// page at a time cost more than the clean that used it. Buffers of a few
// MiB or more are asked to be backed by 2 MiB pages where the kernel offers
// them on request (transparent huge pages, `madvise` mode, Debian's
// default), which takes one fault where 512 were taken.
//
// Measured (2026-11-25) on a warm one-shot clean of the 100 MB bench
// conversation: 1.26–1.36 s against `git lfs clean`'s 0.43–0.46 s, a third
// of it in read_all and a quarter in base64_decode, nearly all page faults
// (about 190 MB touched, 48,000 first touches, each trapping into this
// virtual machine's kernel). A buffer kept per thread changed nothing
// (malloc already reused those). Huge pages: 23,000 faults, the clean
// 0.75–1.0 s, smudge 1.33 s to 0.81–0.98 s, the same peak memory (199 MB).
// The rest is the many small payloads, from malloc's heap; glibc can advise
// its heap too (GLIBC_TUNABLES=glibc.malloc.hugetlb=1: 4,000 faults), but
// only from the environment at start, so a user may set it and git-jpblob
// does not. A mapped standard input: filter/oneshot.cpp.
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
