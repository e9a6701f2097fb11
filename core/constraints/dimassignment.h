// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace dimscope {

// What one dimension of a tensor leaf is constrained to: static, Dim.AUTO,
// Dim.DYNAMIC or a named (root or derived) Dim. Written in the constraint format as
// "static", "auto", "dynamic" or the Dim's name.
struct DimAssignment {
    enum class Kind { Static, Auto, Dynamic, Named };
    Kind kind = Kind::Static;
    QString dim; // Named: the Dim's name

    static DimAssignment makeStatic() { return {}; }
    static DimAssignment makeAuto() { return {Kind::Auto, {}}; }
    static DimAssignment makeDynamic() { return {Kind::Dynamic, {}}; }
    static DimAssignment named(const QString &name) { return {Kind::Named, name}; }

    static DimAssignment fromString(const QString &text); // "static" / "auto" / "dynamic" / name
    QString toString() const;

    bool isStatic() const { return kind == Kind::Static; }
    bool isNamed() const { return kind == Kind::Named; }

    friend bool operator==(const DimAssignment &x, const DimAssignment &y)
    {
        return x.kind == y.kind && (x.kind != Kind::Named || x.dim == y.dim);
    }
    friend bool operator!=(const DimAssignment &x, const DimAssignment &y) { return !(x == y); }
};

} // namespace dimscope
