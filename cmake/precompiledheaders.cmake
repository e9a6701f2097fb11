# Precompiled headers (DIMSCOPE_PCH, on by default): most of the build's compile time
# was spent parsing the same Qt headers again in every file (a test suite includes
# <QtTest>, that is all of QtCore). Each library precompiles the Qt and standard headers
# its files use most; the test suites share three precompiled headers, one per Qt
# flavour, through REUSE_FROM (GCC uses a precompiled header only where every macro it
# tests is defined the same way, and QtTest's headers test QT_GUI_LIB and QT_WIDGETS_LIB).
# Only system headers go in: an edit of the project's own headers rebuilds what it did.
# CMake compiles with -Winvalid-pch: GCC says when it ignores one (a -D that differs).
# A build without them (-DDIMSCOPE_PCH=OFF; the fuzz preset, clang) must build too: every
# file still includes what it uses.
option(DIMSCOPE_PCH "Precompile the Qt and standard headers (faster builds)" ON)

# Not <QDir>, <QFile>, <QFileInfo> in core's: they bring <filesystem> and with it
# std::quoted, which argument-dependent lookup then prefers over core's own
# quoted(std::string_view) for a std::string (capture/manifestparser.cpp).
set(dimscope_pch_core_headers
  <algorithm> <functional> <limits> <memory> <optional> <vector>
  <QByteArray> <QHash> <QJsonArray> <QJsonDocument> <QJsonObject> <QJsonValue> <QList>
  <QMap> <QObject> <QPointer> <QRegularExpression> <QSet> <QString> <QStringList>
  <QVector>)
set(dimscope_pch_gui_headers
  <QDir> <QFileInfo> <QAbstractItemModel> <QAbstractTableModel> <QColor> <QCoreApplication> <QSettings>
  <QSortFilterProxyModel> <QTimer> <QUndoStack>)
set(dimscope_pch_widgets_headers
  <QAction> <QApplication> <QDialog> <QDialogButtonBox> <QFileDialog> <QHBoxLayout>
  <QHeaderView> <QLabel> <QLineEdit> <QMenu> <QMessageBox> <QPlainTextEdit> <QPushButton>
  <QSplitter> <QStyle> <QTableView> <QToolButton> <QTreeView> <QVBoxLayout> <QWidget>)

# dimscope_pch_headers(core|gui|widgets out): the headers of a flavour, each including the last.
function(dimscope_pch_headers flavour out)
  set(headers ${dimscope_pch_core_headers})
  if(flavour STREQUAL "gui" OR flavour STREQUAL "widgets")
    list(APPEND headers ${dimscope_pch_gui_headers})
  endif()
  if(flavour STREQUAL "widgets")
    list(APPEND headers ${dimscope_pch_widgets_headers})
  endif()
  set(${out} ${headers} PARENT_SCOPE)
endfunction()

# dimscope_library_pch(target core|gui|widgets): the target precompiles its flavour's headers.
function(dimscope_library_pch target flavour)
  if(NOT DIMSCOPE_PCH)
    return()
  endif()
  dimscope_pch_headers(${flavour} headers)
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()
