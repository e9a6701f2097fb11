// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>

namespace dimscope {

class MainWindow;

// `dimscope --quit-after first-paint|shown` (hidden from --help): quits once the main
// window has painted for the first time (main then opens no file: it would open after
// that paint), or once the capture given on the command line is shown in the tree and
// painted. tests/bench/bench_guistartup times whole processes
// with it; nothing else uses it.
class QuitAfter : public QObject
{
    Q_OBJECT
public:
    enum class Moment { FirstPaint, CaptureShown };
    static void install(MainWindow *window, Moment moment);

private:
    explicit QuitAfter(MainWindow *window);
};

} // namespace dimscope
