// SPDX-License-Identifier: GPL-3.0-or-later
#include "dimcolours.h"

#include "shapes/constraintset.h"

#include <QSet>

namespace dimscope {

namespace {
// Distinguishable on light and dark backgrounds (ColorBrewer Dark2 + Set1 picks).
const QColor kPalette[] = {
    QColor(0x1b, 0x9e, 0x77), QColor(0xd9, 0x5f, 0x02), QColor(0x75, 0x70, 0xb3), QColor(0xe7, 0x29, 0x8a),
    QColor(0x66, 0xa6, 0x1e), QColor(0xe6, 0xab, 0x02), QColor(0xa6, 0x76, 0x1d), QColor(0x37, 0x7e, 0xb8),
    QColor(0x98, 0x4e, 0xa3), QColor(0xff, 0x7f, 0x00), QColor(0x4d, 0xaf, 0x4a), QColor(0xa6, 0x56, 0x28),
};
constexpr int kPaletteSize = int(sizeof(kPalette) / sizeof(kPalette[0]));
} // namespace

DimColours::DimColours(QObject *parent) : QObject(parent) {}

void DimColours::reset()
{
    m_slot.clear();
    m_rootOf.clear();
}

void DimColours::update(const ConstraintSet &set)
{
    QSet<QString> live;
    m_rootOf.clear();
    for (const DimDecl &d : set.dims()) {
        live.insert(d.name);
        if (d.isDerived())
            m_rootOf.insert(d.name, d.root);
    }
    for (auto it = m_slot.begin(); it != m_slot.end();) {
        if (!live.contains(it.key()))
            it = m_slot.erase(it);
        else
            ++it;
    }
    for (const DimDecl &d : set.dims()) {
        if (d.isDerived() || m_slot.contains(d.name))
            continue;
        QSet<int> used;
        for (int s : std::as_const(m_slot))
            used.insert(s);
        int slot = 0;
        while (used.contains(slot))
            ++slot; // past the palette size slots wrap around (see colour())
        m_slot.insert(d.name, slot);
    }
}

QColor DimColours::staticVaryingColour() { return QColor(0x80, 0x80, 0x80); }

QColor DimColours::unnamedDynamicColour() { return QColor(0x5c, 0x6b, 0xc0); }

QColor DimColours::colour(const QString &dim) const
{
    const QString root = m_rootOf.value(dim);
    if (!root.isEmpty())
        return colour(root).lighter(135);
    const auto it = m_slot.constFind(dim);
    if (it == m_slot.constEnd())
        return {};
    return kPalette[*it % kPaletteSize];
}

} // namespace dimscope
