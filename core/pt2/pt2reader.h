// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pt2/pt2program.h"

#include <QString>
#include <QVector>

#include <optional>

namespace dimscope {

// How much of an archive the reader inflates and parses. A zip record can inflate
// to a thousand times its stored size, and a parsed JSON DOM costs tens of bytes per
// element however short the element's text (`[]` is two bytes): without bounds a
// small .pt2 could take gigabytes. Real programs' JSON is a few MB to some tens of MB,
// mostly the graph's nodes and the values of intermediate tensors, which are checked
// but never parsed into a DOM (Pt2InterfaceJson); what is parsed (the signature and
// what it names) is some thousands of elements for a large model. The defaults leave
// a wide margin and keep the worst case under 1 GB: the record (256 MB), its kept
// part (64 MB) and a DOM of 2 M elements (about 100 bytes each).
struct Pt2ReadLimits {
    qint64 programJsonBytes = qint64(256) << 20;  // the program record, inflated
    qint64 interfaceJsonBytes = qint64(64) << 20; // the part of it parsed into a DOM
    qint64 interfaceJsonElements = 2000000;       // JSON elements in that part (Pt2InterfaceJson::countElements)
};

// Reads the interface of a torch.export .pt2 archive (no Python, no LibTorch): both
// the torch 2.5-2.7 layout (root-level serialized_exported_program.json) and the
// torch 2.8+ PT2 archive (<root>/models/<name>.json), which may hold several programs
// (dimscope writes the programs of a phased export into one archive: "model", then
// "phase2", ...). `model`: which program; empty: the one named "model", else the first
// by name. Malformed input, or a program the archive does not hold, gives nullopt and
// an error naming the file, the record and the place in the JSON.
class Pt2Reader
{
public:
    static std::optional<Pt2Program> open(const QString &path, QString *error, const Pt2ReadLimits &limits = {},
                                          const QString &model = {});
    // Every program of the archive, in the order of Pt2Program::modelNames (one for the
    // torch 2.5-2.7 layout). Empty, with the error, when any of them cannot be read.
    static QVector<Pt2Program> openAll(const QString &path, QString *error, const Pt2ReadLimits &limits = {});
};

} // namespace dimscope
