# LLD links every target where the compiler accepts -fuse-ld=lld (DIMSCOPE_LLD, on by
# default; scripts/setup installs lld). CI time: each GUI test suite is a ~130 MB
# executable with its debug info, and GNU ld took 5-6 s of CPU to link one where LLD takes
# about 1.2 s (tst_mainwindow, measured on the 2-core CI machine); the default build links
# some 85 programs, the asan build 34 more. Without LLD (or with -DDIMSCOPE_LLD=OFF) the
# compiler's default linker is used, as before.
option(DIMSCOPE_LLD "Link with LLD when the compiler accepts -fuse-ld=lld (faster links)" ON)
if(DIMSCOPE_LLD)
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=lld" DIMSCOPE_HAVE_LLD)
  if(DIMSCOPE_HAVE_LLD)
    add_link_options(-fuse-ld=lld)
  endif()
endif()
