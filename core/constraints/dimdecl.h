// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QtGlobal>

#include <optional>

namespace dimscope {

// One named torch.export Dim of a ConstraintSet: a root Dim with an optional range,
// or a derived Dim `a * root + b` whose range follows its root's.
struct DimDecl {
    QString name;
    std::optional<qint64> min; // root: nullopt = torch's default lower bound
    std::optional<qint64> max; // root: nullopt = unbounded (torch's `oo`)
    QString root;              // derived: name of a root Dim; empty for a root Dim
    qint64 a = 1;              // derived: positive multiplier
    qint64 b = 0;              // derived: offset (may be negative)

    bool isDerived() const { return !root.isEmpty(); }

    static DimDecl makeRoot(const QString &name, std::optional<qint64> min = std::nullopt,
                            std::optional<qint64> max = std::nullopt);
    static DimDecl makeDerived(const QString &name, const QString &root, qint64 a, qint64 b);

    // "past_len + 1", "2*_dx - 3", "batch" (a == 1, b == 0): the relation as torch prints it.
    QString relationText() const;

    friend bool operator==(const DimDecl &x, const DimDecl &y)
    {
        return x.name == y.name && x.min == y.min && x.max == y.max && x.root == y.root && x.a == y.a
            && x.b == y.b;
    }
    friend bool operator!=(const DimDecl &x, const DimDecl &y) { return !(x == y); }
};

namespace dimname {
// Names a Dim may take: a Python identifier (ASCII), not a Python keyword, not one of
// the per-dimension keywords of the constraint format (static, auto, dynamic).
bool isValid(const QString &name);
// Why `name` is not valid (empty when it is).
QString whyInvalid(const QString &name);
// Turns any text into a valid name ("past_key_values.key_cache[0]" -> "past_key_values_key_cache_0").
QString sanitize(const QString &text);
} // namespace dimname

} // namespace dimscope
