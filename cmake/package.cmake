# The Debian package (install/package.sh builds it): CPack's DEB generator
# packs what `cmake --install` installs, under /usr: the binary, the manual
# pages, the bash completion, ci-verify.sh (a CI job's check) and CHANGELOG.md.
#
# Depends: git, which every command runs, and the shared libraries the
# binary links (libgit2, libdeflate, OpenSSL's libcrypto, zlib, the C++
# runtime), which dpkg-shlibdeps (dpkg-dev) reads from the binary, with the
# versions of the machine that built it, as a Debian package's rules do.
# The repository has no licence file, so the package carries no copyright
# file and no License field.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME git-jpblob)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "Seed e6c9f8b0 maintainers <maintainers@users.noreply.a-seed-e6c9f8b0.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "keeps JP conversations small and shareable in git")
# The long description, in lines dpkg shows as they are (under 80 columns).
set(CPACK_PACKAGE_DESCRIPTION
    "A git filter that moves the tool outputs, tool arguments and provider
signatures of JP conversations (and the images of coding-agent sessions)
into a content-addressed store of gzip files, committing a small reference
in their place; checkout puts the exact bytes back. With hooks that commit
and check every blob a commit needs, a merge driver, gc, verify and repair.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # git-jpblob_<version>_<architecture>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION vcs)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_DEPENDS git)  # the libraries are added to it by:
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)

include(CPack)
