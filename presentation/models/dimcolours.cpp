// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/dimcolours.h"

#include "constraints/constraintset.h"

#include <QGuiApplication>
#include <QPalette>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace dimscope {

namespace {
// Distinguishable on light and dark backgrounds (ColorBrewer Dark2 + Set1 picks).
const QColor kPalette[] = {
    QColor(0x1b, 0x9e, 0x77), QColor(0xd9, 0x5f, 0x02), QColor(0x75, 0x70, 0xb3), QColor(0xe7, 0x29, 0x8a),
    QColor(0x66, 0xa6, 0x1e), QColor(0xe6, 0xab, 0x02), QColor(0xa6, 0x76, 0x1d), QColor(0x37, 0x7e, 0xb8),
    QColor(0x98, 0x4e, 0xa3), QColor(0xff, 0x7f, 0x00), QColor(0x4d, 0xaf, 0x4a), QColor(0xa6, 0x56, 0x28),
};
constexpr int kPaletteSize = int(sizeof(kPalette) / sizeof(kPalette[0]));

// WCAG 2 relative luminance and contrast ratio.
double luminance(const QColor &c)
{
    auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

double contrast(const QColor &a, const QColor &b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}
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
    // The lowest free slot only grows while new Dims take slots: one pass for all of
    // them (a search from 0 per Dim cost Dims^2: 10,000 Dims took seconds).
    QSet<int> used;
    for (int s : std::as_const(m_slot))
        used.insert(s);
    int slot = 0;
    for (const DimDecl &d : set.dims()) {
        if (d.isDerived() || m_slot.contains(d.name))
            continue;
        while (used.contains(slot))
            ++slot; // past the palette size slots wrap around (see colour())
        used.insert(slot);
        m_slot.insert(d.name, slot);
    }
}

QColor DimColours::staticVaryingColour() { return QColor(0x80, 0x80, 0x80); }

QColor DimColours::unnamedDynamicColour() { return QColor(0x00, 0x83, 0x8f); }

QColor DimColours::readableOnBase(const QColor &colour)
{
    const auto *gui = qobject_cast<QGuiApplication *>(QCoreApplication::instance());
    return gui ? readableOn(colour, QGuiApplication::palette().color(QPalette::Base)) : colour;
}

QColor DimColours::readableOn(const QColor &colour, const QColor &background)
{
    constexpr double kReadable = 4.5;
    // The palette was chosen on light backgrounds, where it is left as it is.
    if (!colour.isValid() || luminance(background) >= 0.18 || contrast(colour, background) >= kReadable)
        return colour;
    QColor hsl = colour.toHsl();
    // Small steps in lightness, so the colour moves no further than it must.
    for (int step = 0; step < 40 && contrast(hsl, background) < kReadable; ++step) {
        const float l = hsl.lightnessF() + 0.025f;
        hsl.setHslF(hsl.hslHueF(), hsl.hslSaturationF(), std::clamp(l, 0.0f, 1.0f));
    }
    return hsl.toRgb();
}

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
