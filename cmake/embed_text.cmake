# Writes a C++ source file that holds a text file's bytes as one string:
#   cmake -DINPUT=<file> -DOUTPUT=<file.cpp> -DSYMBOL=<name> -P embed_text.cmake
# The command line's definition (cli/commands.json) reaches the program this
# way, so the program and the pages made from it at build time read one file.
file(READ "${INPUT}" text)
string(FIND "${text}" ")jpblob_text\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} holds the raw string's closing sequence")
endif()
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT} by cmake/embed_text.cmake; do not edit.\n"
  "extern const char* const ${SYMBOL};\n"
  "const char* const ${SYMBOL} = R\"jpblob_text(${text})jpblob_text\";\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
