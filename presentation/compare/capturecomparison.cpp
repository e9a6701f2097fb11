// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare/capturecomparison.h"

#include "capture/capture.h"
#include "inference/shapetable.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>

namespace dimscope {

namespace {

QString tr(const char *text, int n = -1) { return QCoreApplication::translate("dimscope::CaptureComparison", text, nullptr, n); }

// The smallest and largest size of a dim row over the calls that have its leaf.
std::pair<qint64, qint64> extent(const ShapeTable &table, int row)
{
    qint64 lo = -1, hi = -1;
    for (int call = 0; call < table.callCount(); ++call) {
        const qint64 v = table.value(row, call);
        if (v < 0)
            continue;
        lo = lo < 0 ? v : std::min(lo, v);
        hi = std::max(hi, v);
    }
    return {lo, hi};
}

QString dimText(const ShapeTable &table, int row)
{
    const auto [lo, hi] = extent(table, row);
    if (lo < 0)
        return QStringLiteral("?");
    return lo == hi ? QString::number(lo) : QStringLiteral("[%1..%2]").arg(lo).arg(hi);
}

// What a leaf dim does over a capture's calls: "varies 5..9" or "constant 64".
QString variesText(const ShapeTable &table, int leaf, int dim)
{
    if (leaf < 0 || dim >= table.leaf(leaf).rank)
        return Comparison::none();
    const int row = table.leaf(leaf).firstDim + dim;
    const auto [lo, hi] = extent(table, row);
    if (lo < 0)
        return Comparison::none();
    return table.rowVaries(row) ? tr("varies %1..%2").arg(lo).arg(hi) : tr("constant %1").arg(lo);
}

// Leaf paths of A in A's order, then those only B has.
QStringList leafPaths(const ShapeTable &a, const ShapeTable &b)
{
    QStringList paths;
    for (const ShapeTable::LeafInfo &leaf : a.leaves())
        paths << leaf.path;
    for (const ShapeTable::LeafInfo &leaf : b.leaves())
        if (a.indexOf(leaf.path) < 0)
            paths << leaf.path;
    return paths;
}

} // namespace

QString CaptureComparison::shapeText(const ShapeTable &table, int leaf)
{
    const ShapeTable::LeafInfo &info = table.leaf(leaf);
    if (info.rank == 0)
        return tr("scalar");
    QStringList parts;
    for (int d = 0; d < info.rank; ++d)
        parts << dimText(table, info.firstDim + d);
    QString text = parts.join(QStringLiteral(" x "));
    if (!info.consistent)
        text += tr(" (rank varies)");
    if (info.presentCalls < table.callCount())
        text += tr(" (in %1 of %2 calls)").arg(info.presentCalls).arg(table.callCount());
    return text;
}

Comparison CaptureComparison::make(const Capture &a, const Capture &b, const QString &titleA, const QString &titleB)
{
    const ShapeTable ta(a), tb(b);
    Comparison c;
    c.titleA = titleA;
    c.titleB = titleB;
    c.sections = {calls(a, b), leaves(ta, tb), varyingDims(ta, tb)};
    return c;
}

Comparison::Section CaptureComparison::calls(const Capture &a, const Capture &b)
{
    auto text = [](const QString &value) { return value.isEmpty() ? Comparison::none() : value; };
    return {tr("Capture"),
            {Comparison::row(tr("calls"), QString::number(a.calls.size()), QString::number(b.calls.size())),
             Comparison::row(tr("model class"), text(a.modelClass), text(b.modelClass)),
             Comparison::row(tr("torch"), text(a.torchVersion), text(b.torchVersion))}};
}

Comparison::Section CaptureComparison::leaves(const ShapeTable &a, const ShapeTable &b)
{
    Comparison::Section s{tr("Input leaves"), {}};
    for (const QString &path : leafPaths(a, b)) {
        const int ia = a.indexOf(path), ib = b.indexOf(path);
        s.rows << Comparison::row(path, ia < 0 ? Comparison::none() : shapeText(a, ia),
                                  ib < 0 ? Comparison::none() : shapeText(b, ib));
    }
    return s;
}

// Every leaf dim that varies in either capture, with what it does in both.
Comparison::Section CaptureComparison::varyingDims(const ShapeTable &a, const ShapeTable &b)
{
    Comparison::Section s{tr("Dims that vary"), {}};
    for (const QString &path : leafPaths(a, b)) {
        const int ia = a.indexOf(path), ib = b.indexOf(path);
        const int rank = std::max(ia < 0 ? 0 : a.leaf(ia).rank, ib < 0 ? 0 : b.leaf(ib).rank);
        for (int d = 0; d < rank; ++d) {
            const bool variesA = ia >= 0 && d < a.leaf(ia).rank && a.rowVaries(a.leaf(ia).firstDim + d);
            const bool variesB = ib >= 0 && d < b.leaf(ib).rank && b.rowVaries(b.leaf(ib).firstDim + d);
            if (!variesA && !variesB)
                continue;
            const QString va = ia < 0 ? Comparison::none() : variesText(a, ia, d);
            const QString vb = ib < 0 ? Comparison::none() : variesText(b, ib, d);
            // Marked where one varies and the other does not (or lacks the leaf); a
            // different range of a dim that varies in both is shown, not marked.
            s.rows << Comparison::Row{tr("%1 dim %2").arg(path).arg(d), va, vb, variesA != variesB};
        }
    }
    return s;
}

} // namespace dimscope
