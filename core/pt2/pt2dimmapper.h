// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pt2/pt2program.h"

#include <QHash>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace dimscope {

// A derived Dim of the user's constraints: value = a * root + b.
struct Pt2DerivedDim {
    QString root;
    qint64 a = 1;
    qint64 b = 0;
};

// Where a symbol appears: dimension `dim` of user input `input` (index into
// Pt2Program::inputs).
struct Pt2DimUse {
    int input = -1;
    int dim = -1;
    QString inputName;        // placeholder name
    QString path;             // key path ("" when the archive gives none)
    SymExpr expr;             // the size there ("s1 + 1" where the symbol is shifted)
};

struct Pt2DimMapping {
    struct Dim {
        enum class Status {
            Static,            // static in the program, and the user wanted it so (or said auto)
            Symbolic,          // symbolic in the program, and the user asked for a dynamic dim
            Specialized,       // the user asked for a named Dim or Dim.DYNAMIC; torch made it a constant
            UnexpectedDynamic  // the user said static (or nothing); the program has a symbol
        };
        QString intended;      // the user's entry: a Dim name, "static", "auto", "dynamic" or ""
        SymSize size;          // what the program has
        Status status = Status::Static;
    };
    struct Input {
        int input = -1;        // index into Pt2Program::inputs
        QString name;          // placeholder name
        QString leafPath;      // the user's leaf path it was matched to ("" = none)
        QString matchedBy;     // "path" (in_spec), "name" (placeholder name), "position", or ""
        QVector<Dim> dims;     // tensor inputs only
    };
    QVector<Input> inputs;                       // one per program user input, in order
    QMap<QString, QString> symbolToDim;          // "s0" -> "batch"
    QMap<QString, QStringList> symbolConflicts;  // a symbol the user gave several names
    QMap<QString, QStringList> dimToSymbols;     // "batch" -> {"s0", "s6"}: torch kept them apart
    QMap<QString, QStringList> expressionNames;  // "s1 + 1" -> {"total_len"} when not resolvable to a root
    QStringList unmatchedLeaves;                 // user leaves no program input corresponds to
    QStringList problems;                        // human-readable findings (specializations, ...)

    // A size in the user's Dim names, the one spelling of the CLI, the result view and
    // the files: "batch" for s0, "seq_len + past_len" for s1 + s2; a Dim of the
    // constraints that torch expressed through others leads with its names:
    // "total_len = past_len + seq_len". Symbols without a Dim name stay as torch wrote
    // them; a static size is its number.
    QString namedSize(const SymSize &size) const;
    QString namedExpression(const SymExpr &expr) const;

    static QString statusName(Dim::Status s);
};

// Maps torch's symbols (s0, s1, ...) back to the user's Dim names through the
// inputs they appear in. Independent of the constraint model: the caller passes the
// user's per-leaf Dim entries (leaf path -> one entry per dimension, as in the
// constraint set's "leaves": a Dim name, "static", "auto", "dynamic" or "") and the
// leaf paths of the example call in flattening order.
class Pt2DimMapper
{
public:
    static Pt2DimMapping map(const Pt2Program &program, const QStringList &leafPaths,
                             const QHash<QString, QStringList> &leafDims,
                             const QHash<QString, Pt2DerivedDim> &derived = {});
    // A program read on its own: its symbols in the Dim names its file records
    // (Pt2Program::recordedDimNames); no intent to check against. nullopt when the file
    // records none.
    static std::optional<Pt2DimMapping> recorded(const Pt2Program &program);
    // Every symbol of the user inputs' sizes and where it appears, without user names.
    static QMap<QString, QVector<Pt2DimUse>> symbolUses(const Pt2Program &program);
};

} // namespace dimscope
