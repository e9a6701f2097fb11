# CPack: a .deb for Debian 12 (with a -dbgsym .ddeb holding the debug info) and a
# stripped .tar.gz. `cmake --build build --target package`; scripts/package-test
# installs the .deb into a clean Debian 12 root and runs it there (packaging/README.md).
#
# The Python package and the torch launcher go next to the binaries so an installed
# dimscope finds its worker (<prefix>/share/dimscope/python).
install(DIRECTORY "${PROJECT_SOURCE_DIR}/python/dimscope" DESTINATION share/dimscope/python
        PATTERN "__pycache__" EXCLUDE)
install(PROGRAMS "${PROJECT_SOURCE_DIR}/scripts/torch-python" "${PROJECT_SOURCE_DIR}/scripts/setup"
        DESTINATION share/dimscope/scripts)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/resources/demo" DESTINATION share/dimscope OPTIONAL)

# Desktop integration, all named by the application id (the GUI's desktopFileName):
# the icons in the hicolor theme, the desktop entry, the AppStream metadata and the
# MIME types of the files dimscope opens. Component "desktop" so that the ctest
# desktop_integration_files can install and check just these.
set(DIMSCOPE_APP_ID io.github.dimscope.dimscope)
set(_res "${PROJECT_SOURCE_DIR}/resources")
foreach(size 16 32 64 128 256)
  install(FILES "${_res}/icons/dimscope-${size}.png" DESTINATION share/icons/hicolor/${size}x${size}/apps
          RENAME ${DIMSCOPE_APP_ID}.png COMPONENT desktop)
endforeach()
install(FILES "${_res}/icons/dimscope.svg" DESTINATION share/icons/hicolor/scalable/apps
        RENAME ${DIMSCOPE_APP_ID}.svg COMPONENT desktop)
install(FILES "${_res}/${DIMSCOPE_APP_ID}.desktop" DESTINATION share/applications COMPONENT desktop)
install(FILES "${_res}/${DIMSCOPE_APP_ID}.metainfo.xml" DESTINATION share/metainfo COMPONENT desktop)
install(FILES "${_res}/${DIMSCOPE_APP_ID}.mime.xml" DESTINATION share/mime/packages
        RENAME ${DIMSCOPE_APP_ID}.xml COMPONENT desktop)

if(DIMSCOPE_BUILD_TESTS)
  # Installs the "desktop" component into the build tree and validates it
  # (desktop-file-validate, appstreamcli, update-mime-database; scripts/setup installs them).
  add_test(NAME desktop_integration_files
           COMMAND bash "${PROJECT_SOURCE_DIR}/packaging/check-desktop-files" --install "${PROJECT_BINARY_DIR}"
                   "${PROJECT_BINARY_DIR}/desktop-files-check")
  set_tests_properties(desktop_integration_files PROPERTIES LABELS packaging)
endif()

set(CPACK_PACKAGE_NAME dimscope)
set(CPACK_PACKAGE_VENDOR "dimscope developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "See and shape torch.export dynamic_shapes from captured forward calls")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "dimscope developers")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The export worker needs a Python with torch >= 2.1, which Debian 12 does not have
# (share/dimscope/scripts/setup provisions one); python3 is what it falls back to.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, hicolor-icon-theme")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# The .deb's binaries are stripped and their debug info goes to a dimscope-dbgsym
# .ddeb (found by build id, /usr/lib/debug/.build-id). The .tar.gz is stripped by
# packaging/cpack-options.cmake; stripping there too would leave the .ddeb empty.
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
set(CPACK_PROJECT_CONFIG_FILE "${PROJECT_SOURCE_DIR}/packaging/cpack-options.cmake")
include(CPack)
