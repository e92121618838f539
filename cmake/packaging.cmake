# `cmake --install` and `cpack -G DEB` (scripts/package.sh builds the package; README "Install as
# a service"). Configure with -DCMAKE_INSTALL_PREFIX=/usr for the Debian layout: the binaries in
# /usr/bin, the config in /etc/ringcast, the unit in /lib/systemd/system, the docs in
# /usr/share/doc/ringcast.
include(GNUInstallDirs)

set(RINGCAST_SYSTEMD_UNIT_DIR "/lib/systemd/system" CACHE PATH "Where the systemd unit goes")
set(RINGCAST_BIN_DIR "${CMAKE_INSTALL_FULL_BINDIR}")
set(RINGCAST_CONF_DIR "${CMAKE_INSTALL_FULL_SYSCONFDIR}/ringcast")
set(RINGCAST_DOC_DIR "${CMAKE_INSTALL_FULL_DATAROOTDIR}/doc/ringcast")
configure_file(${PROJECT_SOURCE_DIR}/packaging/ringcast.service.in
               ${PROJECT_BINARY_DIR}/packaging/ringcast.service @ONLY)

install(TARGETS ringcast ringcast-load RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/packaging/ringcast.conf DESTINATION ${RINGCAST_CONF_DIR}
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ)
install(FILES ${PROJECT_BINARY_DIR}/packaging/ringcast.service
        DESTINATION ${RINGCAST_SYSTEMD_UNIT_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${RINGCAST_DOC_DIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${RINGCAST_DOC_DIR}/docs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/deploy/ DESTINATION ${RINGCAST_DOC_DIR}/examples)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ringcast)
set(CPACK_PACKAGE_VENDOR ringcast)
set(CPACK_PACKAGE_CONTACT "ringcast maintainers <ringcast@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "long-connection push server (WebSocket, SSE, long-poll)")
set(CPACK_PACKAGE_DESCRIPTION
    "ringcast keeps thousands of browsers connected and pushes every publish to them within \
milliseconds, with resume by message id; several nodes share one stream through Redis.")
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
# The runtime libraries the binaries link, found by dpkg-shlibdeps; adduser for the system user.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "redis-server, redis-sentinel, nginx")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/packaging/postinst ${PROJECT_SOURCE_DIR}/packaging/prerm
    ${PROJECT_SOURCE_DIR}/packaging/postrm ${PROJECT_SOURCE_DIR}/packaging/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
