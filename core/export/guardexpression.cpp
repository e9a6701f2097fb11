// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/guardexpression.h"

#include <algorithm>
#include <initializer_list>
#include <limits>

namespace dimscope {

struct GuardExpression::Node {
    enum class Kind { Number, Name, Negate, Binary, Call };
    Kind kind = Kind::Number;
    qint64 number = 0;
    QString text; // Name: the Dim; Binary: the operator; Call: the function
    QVector<std::shared_ptr<const Node>> args;
};

namespace {

using NodePtr = std::shared_ptr<const GuardExpression::Node>;
using Node = GuardExpression::Node;

constexpr int kMaxDepth = 200; // torch's guards nest a few levels; deeper is not a guard

class Parser
{
public:
    explicit Parser(const QString &text) : m_text(text) {}

    NodePtr parseAll(QString *error)
    {
        NodePtr n = parseOr();
        skipSpace();
        if (n && m_pos != m_text.size())
            fail(QStringLiteral("unexpected '%1'").arg(m_text.mid(m_pos, 12)));
        if (!m_error.isEmpty()) {
            *error = m_error;
            return nullptr;
        }
        return n;
    }
    QStringList names;
    QVector<qint64> constants;

private:
    void skipSpace()
    {
        while (m_pos < m_text.size() && m_text.at(m_pos).isSpace())
            ++m_pos;
    }
    bool take(const QString &token)
    {
        skipSpace();
        if (!m_text.mid(m_pos, token.size()).startsWith(token))
            return false;
        // "and"/"or" are words: not the start of a name like "order".
        if (token.at(0).isLetter() && m_pos + token.size() < m_text.size()
            && (m_text.at(m_pos + token.size()).isLetterOrNumber() || m_text.at(m_pos + token.size()) == QLatin1Char('_')))
            return false;
        m_pos += int(token.size());
        return true;
    }
    NodePtr fail(const QString &why)
    {
        if (m_error.isEmpty())
            m_error = QStringLiteral("%1 at column %2").arg(why).arg(m_pos + 1);
        return nullptr;
    }
    static NodePtr binary(const QString &op, NodePtr l, NodePtr r)
    {
        if (!l || !r)
            return nullptr;
        auto n = std::make_shared<Node>();
        n->kind = Node::Kind::Binary;
        n->text = op;
        n->args = {l, r};
        return n;
    }
    struct Depth {
        explicit Depth(int &d) : depth(d) { ++depth; }
        ~Depth() { --depth; }
        int &depth;
    };

    NodePtr parseOr()
    {
        NodePtr l = parseAnd();
        while (l && (take(QStringLiteral("or")) || take(QStringLiteral("|"))))
            l = binary(QStringLiteral("or"), l, parseAnd());
        return l;
    }
    NodePtr parseAnd()
    {
        NodePtr l = parseComparison();
        while (l && (take(QStringLiteral("and")) || take(QStringLiteral("&"))))
            l = binary(QStringLiteral("and"), l, parseComparison());
        return l;
    }
    NodePtr parseComparison()
    {
        NodePtr l = parseSum();
        for (const char *op : {"==", "!=", "<=", ">=", "<", ">"}) {
            if (l && take(QLatin1String(op)))
                return binary(QLatin1String(op), l, parseSum());
        }
        return l;
    }
    // One level of left-associative binary operators (longest spelling first: // before /).
    template <typename Next>
    NodePtr parseLeftAssociative(std::initializer_list<const char *> ops, Next next)
    {
        NodePtr l = (this->*next)();
        while (l) {
            const char *const *op = std::find_if(ops.begin(), ops.end(), [this](const char *o) { return take(QLatin1String(o)); });
            if (op == ops.end())
                break;
            l = binary(QLatin1String(*op), l, (this->*next)());
        }
        return l;
    }
    NodePtr parseSum() { return parseLeftAssociative({"+", "-"}, &Parser::parseProduct); }
    NodePtr parseProduct() { return parseLeftAssociative({"//", "*", "%"}, &Parser::parseUnary); }
    NodePtr parseUnary()
    {
        Depth guard(m_depth);
        if (m_depth > kMaxDepth)
            return fail(QStringLiteral("nested too deeply"));
        if (take(QStringLiteral("-"))) {
            NodePtr operand = parseUnary();
            if (!operand)
                return nullptr;
            auto n = std::make_shared<Node>();
            n->kind = Node::Kind::Negate;
            n->args = {operand};
            return n;
        }
        return parseAtom();
    }
    NodePtr parseAtom()
    {
        skipSpace();
        if (m_pos >= m_text.size())
            return fail(QStringLiteral("the expression ends early"));
        if (take(QStringLiteral("("))) {
            NodePtr inner = parseOr();
            if (inner && !take(QStringLiteral(")")))
                return fail(QStringLiteral("')' expected"));
            return inner;
        }
        const QChar c = m_text.at(m_pos);
        if (c.isDigit())
            return parseNumber();
        if (c.isLetter() || c == QLatin1Char('_'))
            return parseNameOrCall();
        return fail(QStringLiteral("unexpected '%1'").arg(c));
    }
    NodePtr parseNumber()
    {
        const int start = m_pos;
        while (m_pos < m_text.size() && m_text.at(m_pos).isDigit())
            ++m_pos;
        bool ok = false;
        auto n = std::make_shared<Node>();
        n->number = m_text.mid(start, m_pos - start).toLongLong(&ok);
        if (!ok)
            return fail(QStringLiteral("a number out of range"));
        constants << n->number;
        return n;
    }
    NodePtr parseNameOrCall()
    {
        const int start = m_pos;
        while (m_pos < m_text.size() && (m_text.at(m_pos).isLetterOrNumber() || m_text.at(m_pos) == QLatin1Char('_')))
            ++m_pos;
        auto n = std::make_shared<Node>();
        n->text = m_text.mid(start, m_pos - start);
        if (!take(QStringLiteral("("))) {
            n->kind = Node::Kind::Name;
            if (!names.contains(n->text))
                names << n->text;
            return n;
        }
        static const QHash<QString, int> arity{{QStringLiteral("Max"), -1}, {QStringLiteral("Min"), -1},
                                               {QStringLiteral("Abs"), 1},  {QStringLiteral("Mod"), 2},
                                               {QStringLiteral("FloorDiv"), 2}, {QStringLiteral("Eq"), 2},
                                               {QStringLiteral("Ne"), 2}};
        const auto wanted = arity.constFind(n->text);
        if (wanted == arity.constEnd())
            return fail(QStringLiteral("unknown function '%1'").arg(n->text));
        n->kind = Node::Kind::Call;
        do {
            NodePtr arg = parseOr();
            if (!arg)
                return nullptr;
            n->args << arg;
        } while (take(QStringLiteral(",")));
        if (!take(QStringLiteral(")")))
            return fail(QStringLiteral("')' expected"));
        if ((*wanted >= 0 && n->args.size() != *wanted) || n->args.isEmpty())
            return fail(QStringLiteral("%1 takes %2 arguments").arg(n->text).arg(*wanted));
        return n;
    }

    const QString &m_text;
    int m_pos = 0;
    int m_depth = 0;
    QString m_error;
};

std::optional<qint64> checked(__int128 v)
{
    if (v > std::numeric_limits<qint64>::max() || v < std::numeric_limits<qint64>::min())
        return std::nullopt;
    return qint64(v);
}

// Python's (and sympy's) floor division and modulo: rounded towards minus infinity.
std::optional<qint64> floorDiv(qint64 a, qint64 b)
{
    if (b == 0 || (a == std::numeric_limits<qint64>::min() && b == -1))
        return std::nullopt;
    return a / b - ((a % b != 0 && (a < 0) != (b < 0)) ? 1 : 0);
}

std::optional<qint64> pyMod(qint64 a, qint64 b)
{
    const auto q = floorDiv(a, b);
    if (!q)
        return std::nullopt;
    return checked(__int128(a) - __int128(*q) * b);
}

std::optional<qint64> applyBinary(const QString &op, qint64 l, qint64 r)
{
    if (op == QLatin1String("+"))
        return checked(__int128(l) + r);
    if (op == QLatin1String("-"))
        return checked(__int128(l) - r);
    if (op == QLatin1String("*"))
        return checked(__int128(l) * r);
    if (op == QLatin1String("//"))
        return floorDiv(l, r);
    if (op == QLatin1String("%"))
        return pyMod(l, r);
    if (op == QLatin1String("=="))
        return l == r;
    if (op == QLatin1String("!="))
        return l != r;
    if (op == QLatin1String("<="))
        return l <= r;
    if (op == QLatin1String(">="))
        return l >= r;
    if (op == QLatin1String("<"))
        return l < r;
    if (op == QLatin1String(">"))
        return l > r;
    if (op == QLatin1String("and"))
        return l != 0 && r != 0;
    return l != 0 || r != 0; // or
}

// `picks`, when given, gets for each Max/Min the arguments it could take (a bit per
// argument: several where they are equal) and for each Abs the signs it could take (bit 0
// for >= 0, bit 1 for <= 0), in evaluation order.
std::optional<qint64> eval(const Node &n, const QHash<QString, qint64> &values, QVector<quint32> *picks)
{
    switch (n.kind) {
    case Node::Kind::Number:
        return n.number;
    case Node::Kind::Name: {
        const auto it = values.constFind(n.text);
        return it == values.constEnd() ? std::nullopt : std::optional<qint64>(*it);
    }
    case Node::Kind::Negate: {
        const auto v = eval(*n.args.first(), values, picks);
        return v ? checked(-__int128(*v)) : std::nullopt;
    }
    case Node::Kind::Binary: {
        const auto l = eval(*n.args.at(0), values, picks), r = eval(*n.args.at(1), values, picks);
        return l && r ? applyBinary(n.text, *l, *r) : std::nullopt;
    }
    case Node::Kind::Call:
        break;
    }
    QVector<qint64> args;
    for (const auto &a : n.args) {
        const auto v = eval(*a, values, picks);
        if (!v)
            return std::nullopt;
        args << *v;
    }
    if (n.text == QLatin1String("Max") || n.text == QLatin1String("Min")) {
        const auto chosen = n.text == QLatin1String("Max") ? std::max_element(args.cbegin(), args.cend())
                                                           : std::min_element(args.cbegin(), args.cend());
        if (picks) {
            quint32 taken = 0;
            for (int i = 0; i < args.size(); ++i)
                taken |= args[i] == *chosen ? quint32(1) << std::min(i, 31) : 0;
            picks->append(taken);
        }
        return *chosen;
    }
    if (n.text == QLatin1String("Abs") && picks)
        picks->append((args[0] >= 0 ? 1u : 0u) | (args[0] <= 0 ? 2u : 0u));
    if (n.text == QLatin1String("Abs"))
        return checked(args[0] < 0 ? -__int128(args[0]) : __int128(args[0]));
    if (n.text == QLatin1String("Mod"))
        return pyMod(args[0], args[1]);
    if (n.text == QLatin1String("FloorDiv"))
        return floorDiv(args[0], args[1]);
    return applyBinary(n.text == QLatin1String("Eq") ? QStringLiteral("==") : QStringLiteral("!="), args[0], args[1]);
}

} // namespace

GuardExpression GuardExpression::parse(const QString &text)
{
    GuardExpression g;
    // Operator chains nest as deep as they are long, and evaluation recurses: torch's
    // guards are far shorter than this.
    if (text.size() > 4096) {
        g.m_error = QStringLiteral("longer than 4096 characters");
        return g;
    }
    Parser p(text);
    g.m_root = p.parseAll(&g.m_error);
    if (g.m_root) {
        g.m_names = p.names;
        g.m_constants = p.constants;
    }
    return g;
}

std::optional<qint64> GuardExpression::evaluate(const QHash<QString, qint64> &values) const
{
    return m_root ? eval(*m_root, values, nullptr) : std::nullopt;
}

std::optional<QVector<quint32>> GuardExpression::branches(const QHash<QString, qint64> &values) const
{
    QVector<quint32> picks;
    if (!m_root || !eval(*m_root, values, &picks))
        return std::nullopt;
    return picks;
}

bool GuardExpression::samePiece(const QVector<quint32> &a, const QVector<quint32> &b)
{
    if (a.size() != b.size())
        return false;
    for (int i = 0; i < a.size(); ++i) {
        if (!(a[i] & b[i]))
            return false;
    }
    return true;
}

std::optional<bool> GuardExpression::holds(const QHash<QString, qint64> &values) const
{
    const auto v = evaluate(values);
    return v ? std::optional<bool>(*v != 0) : std::nullopt;
}

} // namespace dimscope
