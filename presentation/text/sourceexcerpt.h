// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

namespace dimscope {

// A few lines of a source file around one line, for the read-only viewer beside torch's
// shape decisions. Reading never fails loudly: a file that is gone, unreadable or too
// big gives `error` (the decision itself still shows its line's code).
struct SourceExcerpt {
    QString file;
    int firstLine = 0; // 1-based number of lines.first()
    int focusLine = 0; // the line asked for
    QStringList lines;
    QString error;

    bool isValid() const { return error.isEmpty() && !lines.isEmpty(); }
    // Lines with their numbers, the focus line marked with '>'.
    QString toText() const;
    static SourceExcerpt read(const QString &file, int line, int context = 4);
};

} // namespace dimscope
