#include "mainwindow.h"

namespace dimscope {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent) { setWindowTitle(QStringLiteral("dimscope")); }

MainWindow::~MainWindow() = default;

bool MainWindow::openFile(const QString &path)
{
    Q_UNUSED(path);
    return false; // placeholder until the capture reader lands (issue 2)
}

} // namespace dimscope
