// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>

#include <functional>

namespace dimscope {

// Runs a function once, right after the application's next paint has been delivered.
// main opens the file given on the command line this way, so that reading it never
// competes with the first paint (issue 11: the window paints as fast with a file as
// without one); the leaf details start their first statistics this way, after the new
// capture's tree is on the screen.
class FirstPaint : public QObject
{
    Q_OBJECT
public:
    // `then` runs in `context`'s thread, unless `context` is gone by then.
    static void then(QObject *context, std::function<void()> then);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    FirstPaint(QObject *context, std::function<void()> then);
    std::function<void()> m_then;
};

} // namespace dimscope
