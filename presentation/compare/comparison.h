// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QVector>

namespace dimscope {

// Two things side by side (two exports of a document, two captures), as sections of
// rows, each row an item with what A and what B have for it and whether they differ
// (issue 28, problem 12). Made by ExportComparison and CaptureComparison, shown by
// ComparisonModel. A value; no widget.
struct Comparison {
    struct Row {
        QString item; // "batch", "call 3", "input_ids dim 1"
        QString a;    // what A has ("—" when A has none)
        QString b;
        bool differs = false;
    };
    struct Section {
        QString title; // "Ranges per Dim", "Calls served", …
        QVector<Row> rows;
        int differenceCount() const;
    };

    QString titleA; // "Export 2 (21:30:02): …", "llama.safetensors"
    QString titleB;
    QVector<Section> sections;

    int differenceCount() const;
    // What a side shows for an item it does not have.
    static QString none();
    // A row whose `differs` is whether the two texts differ.
    static Row row(const QString &item, const QString &a, const QString &b);
};

} // namespace dimscope
