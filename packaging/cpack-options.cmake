# Per-generator CPack settings (CPACK_PROJECT_CONFIG_FILE, read once per generator).
# The .tar.gz has no debug package beside it, so its binaries are simply stripped; the
# .deb strips them itself while it moves their debug info into dimscope-dbgsym.
if(CPACK_GENERATOR STREQUAL "TGZ")
  set(CPACK_STRIP_FILES ON)
endif()
