// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMap>
#include <QString>
#include <QStringList>

namespace dimscope {

class Pt2Archive;

// The Dim names dimscope's export worker stores beside the programs of a .pt2 (extra
// file dimscope_dims.json, docs/capture-format.md): for each program, which of torch's
// symbols is which Dim of the spec it was exported with ({"s23": "batch"}). torch keeps
// no Dim names, so without this a .pt2 opened on its own reads "s23 × s53". A file
// without the record (another exporter, an older dimscope) has no names; a damaged
// record gives no names and a warning, never a failure to read the program.
class Pt2DimRecord
{
public:
    static const QString kFileName; // "dimscope_dims.json"
    static constexpr qint64 kMaxBytes = qint64(4) << 20;

    // The record's names for program `program` ("model" for the torch 2.5-2.7 layout);
    // `root`: the archive's root folder ("" for the old layout). *warning (may be null)
    // says what is wrong with a record that is there but cannot be used.
    static QMap<QString, QString> read(const Pt2Archive &archive, const QString &root, const QString &program,
                                       QString *warning);
    // The record itself (JSON text) -> the names of `program`; for read() and the tests.
    static QMap<QString, QString> parse(const QByteArray &json, const QString &program, QString *warning);
};

} // namespace dimscope
