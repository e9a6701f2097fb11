// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

class QCustomPlot;

namespace dimscope {

// Writes a QCustomPlot to a PNG or PDF file (by extension) with a title line above the
// plot, atomically (AtomicFile: a failed save, a full disk included, leaves an existing
// file as it was). The title also goes into the file's metadata (PNG "Title" text, PDF
// document title).
class PlotExporter
{
public:
    // Empty on success, else what went wrong, naming the file.
    static QString write(QCustomPlot *plot, const QString &path, const QString &title);
    static bool isSupported(const QString &path);
};

} // namespace dimscope
