# sim_code.cmake - each force method's key lines, cut from the sources at
# build time into a C header, so the code panel (') cannot drift from the
# kernels. Run by the build (CMakeLists.txt, add_custom_command) whenever the
# list or a source it names changes:
#
#     cmake -DSOURCE_DIR=<repository> -DLIST=sim/sim_code.list
#           -DOUT=<build>/generated/sim_code.h -P sim/sim_code.cmake
#
# LIST (sim/sim_code.list) names, per method, a file and its regions: the
# lines between "/* lecture: begin NAME */" and "/* lecture: end NAME */",
# each marker alone on its line. A region's lines lose their common
# indentation (preprocessor lines, at column 0, are left out of the count
# and kept as they are); a method's regions are joined by a "..." line. The
# header defines SIM_CODE_<BACKEND>_<METHOD> as a string literal.
#
# It stops with an error naming the file, the region and the method (and the
# build fails) when a listed region is missing or empty, a region begins
# twice, a begin has no end (or an end no begin, or regions nest), a marker
# is malformed, or a file holds a region the list does not name.
# tests/test_code_extract.sh checks that it does.

cmake_minimum_required(VERSION 3.24)
foreach(var SOURCE_DIR LIST OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "sim_code.cmake: -D${var}=... is required")
  endif()
endforeach()

# Characters that CMake's lists treat specially stand in for themselves as
# control characters while a file is a list of lines.
string(ASCII 1 c_semi)
string(ASCII 2 c_open)
string(ASCII 3 c_close)
string(ASCII 4 c_bslash)

# The reason on one line of its own (FATAL_ERROR's text is wrapped), then
# the error that stops the script and the build.
function(code_fail msg)
  message(NOTICE "lecture code: ${msg}")
  message(FATAL_ERROR "each method's key lines could not be cut from sim/'s sources (above)")
endfunction()

# The rows of the list: "backend method file region..." each.
file(STRINGS "${LIST}" list_lines)
set(rows "")
set(files "")
foreach(line IN LISTS list_lines)
  string(STRIP "${line}" line)
  if(line STREQUAL "" OR line MATCHES "^#")
    continue()
  endif()
  string(REGEX REPLACE "[ \t]+" ";" f "${line}")
  list(LENGTH f n)
  if(n LESS 4)
    code_fail("${LIST}: \"${line}\" needs a backend, a method, a file and at least one region")
  endif()
  list(GET f 2 file)
  list(APPEND files "${file}")
  string(REPLACE ";" "|" row "${f}")
  list(APPEND rows "${row}")
endforeach()
list(REMOVE_DUPLICATES files)

# Every region of every file, checked: region_<i>_<name> holds its lines,
# dedented, with \n between them.
set(file_index 0)
foreach(file IN LISTS files)
  set(path "${SOURCE_DIR}/${file}")
  if(NOT EXISTS "${path}")
    code_fail("${file}: no such file (named in ${LIST})")
  endif()
  # The regions this file should hold, and the method each belongs to.
  set(wanted "")
  foreach(row IN LISTS rows)
    string(REPLACE "|" ";" f "${row}")
    list(GET f 2 rf)
    if(rf STREQUAL file)
      list(GET f 1 method)
      list(SUBLIST f 3 -1 regions)
      foreach(r IN LISTS regions)
        list(APPEND wanted "${r}")
        set(method_of_${r} "${method}")
      endforeach()
    endif()
  endforeach()

  file(READ "${path}" text)
  string(REPLACE "\\" "${c_bslash}" text "${text}")
  string(REPLACE ";" "${c_semi}" text "${text}")
  string(REPLACE "[" "${c_open}" text "${text}")
  string(REPLACE "]" "${c_close}" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")

  set(open "")
  set(seen "")
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(line MATCHES "lecture:")
      if(NOT line MATCHES "^[ \t]*/\\* lecture: (begin|end) ([A-Za-z0-9_-]+) \\*/[ \t]*$")
        if(line MATCHES "/\\*[ \t]*lecture[ \t]*:")
          code_fail("${file}:${number}: a malformed marker; write /* lecture: begin NAME */ or /* lecture: end NAME */ alone on a line")
        endif()
        if(NOT open STREQUAL "")
          list(APPEND body_${open} "${line}")
        endif()
        continue()
      endif()
      set(what "${CMAKE_MATCH_1}")
      set(name "${CMAKE_MATCH_2}")
      set(owner "")
      if(DEFINED method_of_${name})
        set(owner " (method ${method_of_${name}})")
      endif()
      if(what STREQUAL "begin")
        if(NOT open STREQUAL "")
          code_fail("${file}:${number}: region '${name}'${owner} begins inside region '${open}', which has no end before it (unbalanced markers)")
        endif()
        if(name IN_LIST seen)
          code_fail("${file}:${number}: region '${name}'${owner} is duplicated: it began before (line ${begin_${name}})")
        endif()
        set(open "${name}")
        set(begin_${name} ${number})
        set(body_${name} "")
      else()
        if(NOT open STREQUAL name)
          code_fail("${file}:${number}: the end of region '${name}'${owner} has no begin before it (unbalanced markers)")
        endif()
        list(APPEND seen "${name}")
        set(open "")
      endif()
      continue()
    endif()
    if(NOT open STREQUAL "")
      list(APPEND body_${open} "${line}")
    endif()
  endforeach()
  if(NOT open STREQUAL "")
    set(owner "")
    if(DEFINED method_of_${open})
      set(owner " (method ${method_of_${open}})")
    endif()
    code_fail("${file}:${begin_${open}}: region '${open}'${owner} has no end (unbalanced markers)")
  endif()
  foreach(name IN LISTS seen)
    if(NOT name IN_LIST wanted)
      code_fail("${file}:${begin_${name}}: region '${name}' is not in ${LIST}: list it under its method or remove its markers")
    endif()
  endforeach()
  foreach(name IN LISTS wanted)
    if(NOT name IN_LIST seen)
      code_fail("${file}: region '${name}' of method ${method_of_${name}} is missing: mark its key lines with /* lecture: begin ${name} */ and /* lecture: end ${name} */")
    endif()
    # The common indentation of its code lines (blank and preprocessor lines aside).
    set(indent 1000)
    foreach(line IN LISTS body_${name})
      if(line MATCHES "^[ \t]*$" OR line MATCHES "^#")
        continue()
      endif()
      string(REGEX MATCH "^ +" lead "${line}")
      string(LENGTH "${lead}" n)
      if(n LESS indent)
        set(indent ${n})
      endif()
    endforeach()
    if(indent EQUAL 1000)
      code_fail("${file}:${begin_${name}}: region '${name}' of method ${method_of_${name}} is empty: put its key lines between the markers")
    endif()
    set(out "")
    set(first TRUE)
    foreach(line IN LISTS body_${name})
      string(REGEX MATCH "^ +" lead "${line}")
      string(LENGTH "${lead}" n)
      if(n GREATER_EQUAL indent)
        string(SUBSTRING "${line}" ${indent} -1 line)
      endif()
      if(first)
        set(out "${line}")
        set(first FALSE)
      else()
        string(APPEND out "\n${line}")
      endif()
    endforeach()
    # Blank lines at either end are not key lines.
    string(REGEX REPLACE "^\n+" "" out "${out}")
    string(REGEX REPLACE "\n+$" "" out "${out}")
    set(region_${file_index}_${name} "${out}")
  endforeach()
  set(index_of_${file} ${file_index})
  math(EXPR file_index "${file_index} + 1")
endforeach()

# The header: each method's regions joined, as a C string literal.
set(header "/* sim_code.h - generated at build time by sim/sim_code.cmake from
 * sim/sim_code.list and the regions it names; do not edit. Each
 * SIM_CODE_<BACKEND>_<METHOD> is that method's key lines (sim_method.code). */
#ifndef NBODY_SIM_CODE_H
#define NBODY_SIM_CODE_H
")
foreach(row IN LISTS rows)
  string(REPLACE "|" ";" f "${row}")
  list(GET f 0 backend)
  list(GET f 1 method)
  list(GET f 2 file)
  list(SUBLIST f 3 -1 regions)
  set(code "")
  set(first TRUE)
  foreach(r IN LISTS regions)
    if(NOT first)
      string(APPEND code "\n...\n")
    endif()
    set(first FALSE)
    string(APPEND code "${region_${index_of_${file}}_${r}}")
  endforeach()
  # Back to the characters, escaped for C: \ " and trigraphs' ??.
  string(REPLACE "${c_bslash}" "\\\\" code "${code}")
  string(REPLACE "\"" "\\\"" code "${code}")
  string(REPLACE "??" "?\\?" code "${code}")
  string(REPLACE "${c_semi}" ";" code "${code}")
  string(REPLACE "${c_open}" "[" code "${code}")
  string(REPLACE "${c_close}" "]" code "${code}")
  string(REPLACE "\n" "\\n\" \\\n    \"" code "${code}")
  string(TOUPPER "SIM_CODE_${backend}_${method}" macro)
  string(MAKE_C_IDENTIFIER "${macro}" macro)
  string(APPEND header "#define ${macro} \\\n    \"${code}\"\n")
endforeach()
string(APPEND header "#endif /* NBODY_SIM_CODE_H */\n")

# Written only when it changed, so that an edit elsewhere in a source does
# not recompile everything that includes the header.
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL header)
  file(WRITE "${OUT}" "${header}")
endif()
