// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare/comparison.h"

namespace dimscope {

int Comparison::Section::differenceCount() const
{
    int n = 0;
    for (const Row &r : rows)
        n += r.differs ? 1 : 0;
    return n;
}

int Comparison::differenceCount() const
{
    int n = 0;
    for (const Section &s : sections)
        n += s.differenceCount();
    return n;
}

QString Comparison::none() { return QStringLiteral("—"); }

Comparison::Row Comparison::row(const QString &item, const QString &a, const QString &b)
{
    return {item, a, b, a != b};
}

} // namespace dimscope
