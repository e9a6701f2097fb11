# CPack: a .deb for Debian 12 and a .tar.gz. `cmake --build build --target package`.
# The Python package and the torch launcher go next to the binaries so an installed
# dimscope finds its worker (<prefix>/share/dimscope/python).
install(DIRECTORY "${PROJECT_SOURCE_DIR}/python/dimscope" DESTINATION share/dimscope/python
        PATTERN "__pycache__" EXCLUDE)
install(PROGRAMS "${PROJECT_SOURCE_DIR}/scripts/torch-python" "${PROJECT_SOURCE_DIR}/scripts/setup"
        DESTINATION share/dimscope/scripts)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/resources/demo" DESTINATION share/dimscope OPTIONAL)

set(CPACK_PACKAGE_NAME dimscope)
set(CPACK_PACKAGE_VENDOR "dimscope developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "See and shape torch.export dynamic_shapes from captured forward calls")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "dimscope developers")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
include(CPack)
