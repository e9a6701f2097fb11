// SPDX-License-Identifier: GPL-3.0-or-later
#include "filedialoganswer.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QLineEdit>
#include <QTimer>

namespace dimscope::test {

int answerFileDialog(QAction *action, const QString &path)
{
    int answered = 0;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &poll, [&] {
        auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        if (++answered > 250) {
            dialog->reject();
            return;
        }
        if (auto *name = dialog->findChild<QLineEdit *>(QStringLiteral("fileNameEdit")))
            name->setText(path);
        QMetaObject::invokeMethod(dialog, "accept"); // protected in QFileDialog, a slot all the same
    });
    poll.start(20);
    action->trigger();
    poll.stop();
    return answered;
}

} // namespace dimscope::test
