// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace dimscope {

// A symbolic size from a torch.export program: an integer linear combination of
// symbols plus a constant (sum of coeff*symbol + constant). torch writes sizes as
// sympy `srepr` text (2.6+: "Add(Symbol('s2', positive=True, integer=True), Integer(1))")
// or plain `str` text (2.5, and range constraint keys: "s2 + 1"); both parse here.
// Forms outside that algebra (FloorDiv, Mod, Max, s0*s1, s0**2, ...) are kept as
// text and flagged unsupported rather than failing the whole archive.
class SymExpr
{
public:
    SymExpr() = default;
    static SymExpr constant(qint64 value);
    static SymExpr symbol(const QString &name, qint64 coeff = 1);
    // Parses srepr or str text. Never fails: on an unsupported or malformed form the
    // result has isSupported() == false, problem() says why, text() keeps the input.
    static SymExpr parse(const QString &text);

    bool isSupported() const { return m_problem.isEmpty(); }
    QString problem() const { return m_problem; }
    QString text() const { return m_text; } // the text it was parsed from (may be empty)

    // Only meaningful when supported.
    const QMap<QString, qint64> &terms() const { return m_terms; } // symbol -> coeff (never 0)
    qint64 constantTerm() const { return m_constant; }
    bool isConstant() const { return isSupported() && m_terms.isEmpty(); }
    bool isBareSymbol() const;         // exactly "s0": one term, coeff 1, constant 0
    bool isAffine() const;             // a*s + b with one symbol, a != 0
    QStringList symbols() const;       // sorted by name
    // Evaluates with the given symbol values; nullopt when unsupported, a symbol is
    // missing, or the arithmetic overflows.
    std::optional<qint64> evaluate(const QMap<QString, qint64> &values) const;

    // Plain form: "s0", "2*s1", "32*s5 + 3", "s0 - 1", "-s0 + 4", "7"; the raw text
    // when unsupported.
    QString toString() const;

    bool operator==(const SymExpr &other) const;
    bool operator!=(const SymExpr &other) const { return !(*this == other); }

private:
    friend class SymExprParser;
    QMap<QString, qint64> m_terms;
    qint64 m_constant = 0;
    QString m_text;
    QString m_problem;
};

// Orders symbol names as people read them: s2 before s11.
bool symbolNameLess(const QString &a, const QString &b);

} // namespace dimscope
