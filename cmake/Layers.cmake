# The rooms of core/ (docs/ARCHITECTURE.md, "The rooms") and the two checks
# that keep every dependency running downward.
#
# jpblob_room(NAME SOURCES f.cpp… [ROOMS lower…] [LIBS external…]) makes the
# library jpblob_NAME from core/NAME/ and records which rooms it may use:
# those it names and everything they may use.
#
# jpblob_check_layers() then adds, to the default build:
# - layer_link_NAME, a program linking the whole of jpblob_NAME's archive
#   (not only what a caller pulls in) against just the rooms it names: a
#   call into a higher room is an undefined reference there;
# - check_layers, which reads every #include "core/<room>/…" in core/ and in
#   the callers above it and fails on one its room does not name (a header
#   alone can run upward without a symbol to miss).
find_package(Threads REQUIRED)

set_property(GLOBAL PROPERTY JPBLOB_ROOMS "")

function(jpblob_room name)
  cmake_parse_arguments(ROOM "" "" "SOURCES;ROOMS;LIBS" ${ARGN})
  list(TRANSFORM ROOM_SOURCES PREPEND "${CMAKE_CURRENT_SOURCE_DIR}/${name}/")
  add_library(jpblob_${name} STATIC ${ROOM_SOURCES})
  target_include_directories(jpblob_${name} PUBLIC ${PROJECT_SOURCE_DIR})
  set(reach "")
  foreach(lower IN LISTS ROOM_ROOMS)
    get_property(known GLOBAL PROPERTY JPBLOB_ROOMS)
    if(NOT lower IN_LIST known)
      message(FATAL_ERROR "room ${name} names ${lower}, which is not a room below it")
    endif()
    target_link_libraries(jpblob_${name} PUBLIC jpblob_${lower})
    get_property(lower_reach GLOBAL PROPERTY JPBLOB_REACH_${lower})
    list(APPEND reach ${lower} ${lower_reach})
  endforeach()
  list(REMOVE_DUPLICATES reach)
  target_link_libraries(jpblob_${name} PUBLIC ${ROOM_LIBS})
  set_property(GLOBAL PROPERTY JPBLOB_REACH_${name} "${reach}")
  set_property(GLOBAL APPEND PROPERTY JPBLOB_ROOMS ${name})
endfunction()

function(jpblob_check_layers)
  get_property(rooms GLOBAL PROPERTY JPBLOB_ROOMS)
  set(rules "")
  foreach(room IN LISTS rooms)
    get_property(reach GLOBAL PROPERTY JPBLOB_REACH_${room})
    string(REPLACE ";" " " reach_words "${reach}")
    string(APPEND rules "${room}: ${reach_words}\n")
    add_executable(layer_link_${room} ${PROJECT_SOURCE_DIR}/cmake/layer_link_main.cpp)
    target_link_libraries(layer_link_${room} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,jpblob_${room}>")
    foreach(lower IN LISTS reach)
      target_link_libraries(layer_link_${room} PRIVATE jpblob_${lower})
    endforeach()
  endforeach()
  set(rules_file ${CMAKE_BINARY_DIR}/layers.txt)
  file(WRITE ${rules_file} "${rules}")
  file(GLOB_RECURSE layered CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/core/*.cpp ${PROJECT_SOURCE_DIR}/core/*.hpp)
  set(stamp ${CMAKE_BINARY_DIR}/check_layers.stamp)
  add_custom_command(
    OUTPUT ${stamp}
    COMMAND ${CMAKE_COMMAND} -DRULES=${rules_file} -DROOT=${PROJECT_SOURCE_DIR} -DSTAMP=${stamp}
            -P ${PROJECT_SOURCE_DIR}/cmake/check_layers.cmake
    DEPENDS ${layered} ${rules_file} ${PROJECT_SOURCE_DIR}/cmake/check_layers.cmake
    COMMENT "Checking that core/'s includes run downward"
    VERBATIM)
  add_custom_target(check_layers ALL DEPENDS ${stamp})
endfunction()
