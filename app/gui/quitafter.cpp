// SPDX-License-Identifier: GPL-3.0-or-later
#include "quitafter.h"

#include "firstpaint.h"
#include "mainwindow.h"

#include <QCoreApplication>

namespace dimscope {

QuitAfter::QuitAfter(MainWindow *window) : QObject(window) {}

void QuitAfter::install(MainWindow *window, Moment moment)
{
    auto quit = [] { QCoreApplication::quit(); };
    if (moment == Moment::FirstPaint) {
        FirstPaint::then(window, quit);
        return;
    }
    // The capture is in the tree: quit once that has been painted.
    auto *self = new QuitAfter(window);
    connect(window, &MainWindow::captureShown, self, [window, self, quit] {
        FirstPaint::then(self, quit);
        window->update();
    });
}

} // namespace dimscope
