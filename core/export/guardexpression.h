// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>

#include <memory>
#include <optional>

namespace dimscope {

// One of torch's shape guards as the worker writes it in Dim names (sympy's printing:
// "past_len - total_len + 1 <= 0", "seq_len == 256 - Max(0, 256 - seq_len)",
// "(seq_len + 3)//4 != 1", "Mod(seq_len, 4) == 0"), evaluated on integer values of its
// Dims. The fix loop uses it where torch states a guard but suggests no fix: to find
// the range, or the recorded relation, under which the guard holds. Integers, names,
// + - * // % and unary minus, Max/Min/Abs/Mod/FloorDiv/Eq/Ne, comparisons, and/or
// (also & |); anything else makes the expression invalid. Parsing and evaluation are
// linear in the text; results outside int64 are invalid, not wrapped.
class GuardExpression
{
public:
    struct Node;
    static GuardExpression parse(const QString &text);

    bool isValid() const { return m_root != nullptr; }
    QString error() const { return m_error; }
    const QStringList &names() const { return m_names; } // the Dim names, in first-use order
    // The value (comparisons: 1 or 0); nullopt when a name has no value, on a division
    // by zero or an overflow.
    std::optional<qint64> evaluate(const QHash<QString, qint64> &values) const;
    std::optional<bool> holds(const QHash<QString, qint64> &values) const;
    // Which arguments each Max/Min can take (and which signs each Abs sees) at these
    // values, a bit set per call in evaluation order. Values whose branches are
    // `samePiece` lie in one linear piece of the expression, the form torch can decide.
    std::optional<QVector<quint32>> branches(const QHash<QString, qint64> &values) const;
    static bool samePiece(const QVector<quint32> &a, const QVector<quint32> &b);
    // The integer literals in it (to bound a search for where the guard changes).
    const QVector<qint64> &constants() const { return m_constants; }

private:
    std::shared_ptr<const Node> m_root;
    QStringList m_names;
    QVector<qint64> m_constants;
    QString m_error;
};

} // namespace dimscope
