// SPDX-License-Identifier: GPL-3.0-or-later
#include "pt2/symexpr.h"

#include <QVector>

namespace dimscope {

namespace {

bool addChecked(qint64 a, qint64 b, qint64 *out) { return !__builtin_add_overflow(a, b, out); }
bool mulChecked(qint64 a, qint64 b, qint64 *out) { return !__builtin_mul_overflow(a, b, out); }
// |v| without the INT64_MIN overflow of -v.
quint64 magnitude(qint64 v) { return v < 0 ? quint64(0) - quint64(v) : quint64(v); }

struct Token {
    enum Kind { End, Ident, Int, String, Punct } kind = End;
    QString text;
    int pos = 0;
};

// Linear value while parsing: terms + constant.
struct Lin {
    QMap<QString, qint64> terms;
    qint64 constant = 0;
    bool isConstant() const { return terms.isEmpty(); }
};

} // namespace

// Recursive descent over one grammar that covers both sympy forms: srepr is a tree of
// calls (Add(...), Mul(...), Symbol('s0', ...), Integer(3)), str is infix (32*s5 + 3).
class SymExprParser
{
public:
    explicit SymExprParser(const QString &text) : m_text(text) { tokenize(); }

    std::optional<Lin> parseAll()
    {
        if (!m_error.isEmpty())
            return std::nullopt;
        if (peek().kind == Token::End)
            return fail(QStringLiteral("empty expression"));
        auto value = parseSum();
        if (!value)
            return std::nullopt;
        if (peek().kind != Token::End)
            return fail(QStringLiteral("unexpected '%1' at offset %2").arg(peek().text).arg(peek().pos));
        return value;
    }
    QString error() const { return m_error; }

private:
    void tokenize()
    {
        int i = 0;
        const int n = m_text.size();
        while (i < n) {
            const QChar c = m_text.at(i);
            if (c.isSpace()) {
                ++i;
                continue;
            }
            Token t;
            t.pos = i;
            if (c.isLetter() || c == QLatin1Char('_')) {
                int j = i + 1;
                while (j < n && (m_text.at(j).isLetterOrNumber() || m_text.at(j) == QLatin1Char('_')))
                    ++j;
                t.kind = Token::Ident;
                t.text = m_text.mid(i, j - i);
                i = j;
            } else if (c.isDigit()) {
                int j = i + 1;
                while (j < n && m_text.at(j).isDigit())
                    ++j;
                t.kind = Token::Int;
                t.text = m_text.mid(i, j - i);
                i = j;
            } else if (c == QLatin1Char('\'') || c == QLatin1Char('"')) {
                const int close = m_text.indexOf(c, i + 1);
                if (close < 0) {
                    m_error = QStringLiteral("unterminated string at offset %1").arg(i);
                    return;
                }
                t.kind = Token::String;
                t.text = m_text.mid(i + 1, close - i - 1);
                i = close + 1;
            } else {
                t.kind = Token::Punct;
                const QString two = m_text.mid(i, 2);
                if (two == QLatin1String("**") || two == QLatin1String("//")) {
                    t.text = two;
                    i += 2;
                } else if (QStringLiteral("()+-*/%,=").contains(c)) {
                    t.text = c;
                    ++i;
                } else {
                    m_error = QStringLiteral("unexpected character '%1' at offset %2").arg(c).arg(i);
                    return;
                }
            }
            m_tokens.append(t);
        }
        Token end;
        end.pos = n;
        m_tokens.append(end);
    }

    const Token &peek() const { return m_tokens.at(qMin(m_pos, m_tokens.size() - 1)); }
    Token take()
    {
        Token t = peek();
        if (m_pos < m_tokens.size() - 1)
            ++m_pos;
        return t;
    }
    bool isPunct(const char *p) const { return peek().kind == Token::Punct && peek().text == QLatin1String(p); }
    std::nullopt_t fail(const QString &why)
    {
        if (m_error.isEmpty())
            m_error = why;
        return std::nullopt;
    }

    std::optional<Lin> add(const Lin &a, const Lin &b)
    {
        Lin r = a;
        if (!addChecked(r.constant, b.constant, &r.constant))
            return fail(QStringLiteral("integer overflow"));
        for (auto it = b.terms.cbegin(); it != b.terms.cend(); ++it) {
            qint64 c = 0;
            if (!addChecked(r.terms.value(it.key()), it.value(), &c))
                return fail(QStringLiteral("integer overflow"));
            if (c == 0)
                r.terms.remove(it.key());
            else
                r.terms.insert(it.key(), c);
        }
        return r;
    }

    std::optional<Lin> mul(const Lin &a, const Lin &b)
    {
        if (!a.isConstant() && !b.isConstant())
            return fail(QStringLiteral("product of symbols is not linear"));
        const Lin &k = a.isConstant() ? a : b;
        const Lin &v = a.isConstant() ? b : a;
        Lin r;
        if (!mulChecked(v.constant, k.constant, &r.constant))
            return fail(QStringLiteral("integer overflow"));
        for (auto it = v.terms.cbegin(); it != v.terms.cend(); ++it) {
            qint64 c = 0;
            if (!mulChecked(it.value(), k.constant, &c))
                return fail(QStringLiteral("integer overflow"));
            if (c != 0)
                r.terms.insert(it.key(), c);
        }
        return r;
    }

    std::optional<Lin> parseSum()
    {
        auto left = parseProduct();
        while (left && (isPunct("+") || isPunct("-"))) {
            const bool minus = take().text == QLatin1String("-");
            auto right = parseProduct();
            if (!right)
                return std::nullopt;
            if (minus) {
                Lin neg;
                neg.constant = -1;
                right = mul(*right, neg);
                if (!right)
                    return std::nullopt;
            }
            left = add(*left, *right);
        }
        return left;
    }

    std::optional<Lin> parseProduct()
    {
        auto left = parseFactor();
        while (left) {
            if (isPunct("*")) {
                take();
                auto right = parseFactor();
                if (!right)
                    return std::nullopt;
                left = mul(*left, *right);
            } else if (isPunct("/") || isPunct("//") || isPunct("%") || isPunct("**")) {
                return fail(QStringLiteral("operator '%1' is not supported").arg(peek().text));
            } else {
                break;
            }
        }
        return left;
    }

    std::optional<Lin> parseFactor()
    {
        if (isPunct("-") || isPunct("+")) {
            const bool minus = take().text == QLatin1String("-");
            auto v = parseFactor();
            if (!v || !minus)
                return v;
            Lin neg;
            neg.constant = -1;
            return mul(*v, neg);
        }
        if (isPunct("(")) {
            take();
            auto v = parseSum();
            if (!v)
                return std::nullopt;
            if (!isPunct(")"))
                return fail(QStringLiteral("expected ')' at offset %1").arg(peek().pos));
            take();
            return v;
        }
        const Token t = take();
        if (t.kind == Token::Int) {
            bool ok = false;
            Lin v;
            v.constant = t.text.toLongLong(&ok);
            if (!ok)
                return fail(QStringLiteral("integer %1 is too large").arg(t.text));
            return v;
        }
        if (t.kind == Token::Ident) {
            if (isPunct("("))
                return parseCall(t);
            if (t.text == QLatin1String("oo") || t.text == QLatin1String("zoo") || t.text == QLatin1String("nan"))
                return fail(QStringLiteral("'%1' is not a finite integer").arg(t.text));
            Lin v;
            v.terms.insert(t.text, 1);
            return v;
        }
        if (t.kind == Token::End)
            return fail(QStringLiteral("unexpected end of expression"));
        return fail(QStringLiteral("unexpected '%1' at offset %2").arg(t.text).arg(t.pos));
    }

    // After NAME, at '('. Positional arguments are expressions (or one string for
    // Symbol); keyword arguments (positive=True) are skipped.
    std::optional<Lin> parseCall(const Token &name)
    {
        take(); // '('
        QVector<Lin> args;
        QString symbolName;
        bool sawString = false;
        while (!isPunct(")")) {
            if (peek().kind == Token::Ident && m_pos + 1 < m_tokens.size()
                && m_tokens.at(m_pos + 1).kind == Token::Punct && m_tokens.at(m_pos + 1).text == QLatin1String("=")) {
                take();
                take();
                const Token value = take();
                if (value.kind == Token::End || value.kind == Token::Punct)
                    return fail(QStringLiteral("bad keyword argument in %1(...)").arg(name.text));
            } else if (peek().kind == Token::String) {
                symbolName = take().text;
                sawString = true;
            } else {
                auto v = parseSum();
                if (!v)
                    return std::nullopt;
                args.append(*v);
            }
            if (isPunct(",")) {
                take();
                continue;
            }
            if (!isPunct(")"))
                return fail(QStringLiteral("expected ',' or ')' at offset %1").arg(peek().pos));
        }
        take(); // ')'

        const QString &f = name.text;
        if (f == QLatin1String("Symbol")) {
            if (!sawString || symbolName.isEmpty() || !args.isEmpty())
                return fail(QStringLiteral("Symbol(...) needs one name string"));
            Lin v;
            v.terms.insert(symbolName, 1);
            return v;
        }
        if (sawString)
            return fail(QStringLiteral("unexpected string argument in %1(...)").arg(f));
        if (f == QLatin1String("Integer")) {
            if (args.size() != 1 || !args.first().isConstant())
                return fail(QStringLiteral("Integer(...) needs one integer"));
            return args.first();
        }
        if (f == QLatin1String("One") || f == QLatin1String("Zero") || f == QLatin1String("NegativeOne")) {
            if (!args.isEmpty())
                return fail(QStringLiteral("%1() takes no arguments").arg(f));
            Lin v;
            v.constant = f == QLatin1String("One") ? 1 : f == QLatin1String("Zero") ? 0 : -1;
            return v;
        }
        if (f == QLatin1String("Add") || f == QLatin1String("Mul")) {
            if (args.isEmpty())
                return fail(QStringLiteral("%1() needs arguments").arg(f));
            std::optional<Lin> acc = args.first();
            for (int i = 1; acc && i < args.size(); ++i)
                acc = f == QLatin1String("Add") ? add(*acc, args.at(i)) : mul(*acc, args.at(i));
            return acc;
        }
        return fail(QStringLiteral("function %1(...) is not supported").arg(f));
    }

    QString m_text;
    QVector<Token> m_tokens;
    int m_pos = 0;
    QString m_error;
};

SymExpr SymExpr::constant(qint64 value)
{
    SymExpr e;
    e.m_constant = value;
    return e;
}

SymExpr SymExpr::symbol(const QString &name, qint64 coeff)
{
    SymExpr e;
    if (coeff != 0)
        e.m_terms.insert(name, coeff);
    return e;
}

SymExpr SymExpr::parse(const QString &text)
{
    SymExpr e;
    e.m_text = text;
    SymExprParser parser(text);
    const auto lin = parser.parseAll();
    if (!lin) {
        e.m_problem = parser.error();
        return e;
    }
    e.m_terms = lin->terms;
    e.m_constant = lin->constant;
    return e;
}

bool SymExpr::isBareSymbol() const
{
    return isSupported() && m_terms.size() == 1 && m_terms.first() == 1 && m_constant == 0;
}

bool SymExpr::isAffine() const
{
    return isSupported() && m_terms.size() == 1;
}

QStringList SymExpr::symbols() const
{
    return isSupported() ? m_terms.keys() : QStringList();
}

std::optional<qint64> SymExpr::evaluate(const QMap<QString, qint64> &values) const
{
    if (!isSupported())
        return std::nullopt;
    qint64 total = m_constant;
    for (auto it = m_terms.cbegin(); it != m_terms.cend(); ++it) {
        const auto v = values.constFind(it.key());
        qint64 product = 0;
        if (v == values.cend() || !mulChecked(it.value(), *v, &product) || !addChecked(total, product, &total))
            return std::nullopt;
    }
    return total;
}

QString SymExpr::toString() const
{
    if (!isSupported())
        return m_text;
    QString out;
    for (auto it = m_terms.cbegin(); it != m_terms.cend(); ++it) {
        const qint64 c = it.value();
        const quint64 mag = magnitude(c);
        if (out.isEmpty())
            out += c < 0 ? QStringLiteral("-") : QString();
        else
            out += c < 0 ? QStringLiteral(" - ") : QStringLiteral(" + ");
        if (mag != 1)
            out += QString::number(mag) + QLatin1Char('*');
        out += it.key();
    }
    if (out.isEmpty())
        return QString::number(m_constant);
    if (m_constant > 0)
        out += QStringLiteral(" + ") + QString::number(m_constant);
    else if (m_constant < 0)
        out += QStringLiteral(" - ") + QString::number(magnitude(m_constant));
    return out;
}

bool SymExpr::operator==(const SymExpr &other) const
{
    if (isSupported() != other.isSupported())
        return false;
    if (!isSupported())
        return m_text == other.m_text;
    return m_terms == other.m_terms && m_constant == other.m_constant;
}

bool symbolNameLess(const QString &a, const QString &b)
{
    int i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a.at(i).isDigit() && b.at(j).isDigit()) {
            int ie = i, je = j;
            while (ie < a.size() && a.at(ie).isDigit())
                ++ie;
            while (je < b.size() && b.at(je).isDigit())
                ++je;
            // compare digit runs by length (no leading zeros from sympy), then text
            const QStringView da = QStringView(a).mid(i, ie - i), db = QStringView(b).mid(j, je - j);
            if (da.size() != db.size())
                return da.size() < db.size();
            if (da != db)
                return da < db;
            i = ie;
            j = je;
        } else {
            if (a.at(i) != b.at(j))
                return a.at(i) < b.at(j);
            ++i;
            ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

} // namespace dimscope
