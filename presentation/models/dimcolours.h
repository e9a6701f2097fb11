// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QHash>
#include <QObject>
#include <QStringList>

namespace dimscope {

class ConstraintSet;

// A colour per Dim that stays put while the user edits: a Dim keeps its palette slot
// for as long as it exists, and a new (or renamed) Dim takes the lowest free slot, so
// deleting one Dim never recolours the others. Derived Dims take their root's hue, a
// shade lighter, since they move with it.
class DimColours : public QObject
{
    Q_OBJECT
public:
    explicit DimColours(QObject *parent = nullptr);

    // Frees the slots of Dims that are gone, assigns slots to new ones.
    void update(const ConstraintSet &set);
    void reset();
    QColor colour(const QString &dim) const;
    // `colour` as text on `background`: on a dark background lightened just enough for
    // a 4.5:1 contrast, so that a Dim's sizes stay readable in the dark theme; the hue
    // is kept. Unchanged on a light background (the palette was chosen for one) and
    // when it already reads.
    static QColor readableOn(const QColor &colour, const QColor &background);
    // readableOn the application palette's base (the tables' background); unchanged
    // without a GUI application (the guiless tests read the colours as chosen).
    static QColor readableOnBase(const QColor &colour);

    // A dimension whose size changes between calls but that the constraints keep static
    // (it will fail those calls): grey, a colour no Dim ever gets, so it never reads as
    // a Dim's.
    static QColor staticVaryingColour();
    // Dim.AUTO / Dim.DYNAMIC dimensions (the tree, the Dims panel's auto rows): dynamic, but
    // no named Dim. A dark cyan, far from every palette colour in CIELAB on light and dark
    // backgrounds (the indigo it replaces, #5c6bc0, read as the palette's #7570b3).
    static QColor unnamedDynamicColour();

private:
    QHash<QString, int> m_slot;
    QHash<QString, QString> m_rootOf; // derived Dim -> root
};

} // namespace dimscope
