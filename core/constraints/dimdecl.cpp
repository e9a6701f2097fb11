// SPDX-License-Identifier: GPL-3.0-or-later
#include "constraints/dimdecl.h"

#include "util/terminaltext.h"

#include <QSet>

namespace dimscope {

DimDecl DimDecl::makeRoot(const QString &name, std::optional<qint64> min, std::optional<qint64> max)
{
    DimDecl d;
    d.name = name;
    d.min = min;
    d.max = max;
    return d;
}

DimDecl DimDecl::makeDerived(const QString &name, const QString &root, qint64 a, qint64 b)
{
    DimDecl d;
    d.name = name;
    d.root = root;
    d.a = a;
    d.b = b;
    return d;
}

QString DimDecl::relationText() const
{
    if (!isDerived())
        return name;
    QString text = a == 1 ? root : QStringLiteral("%1*%2").arg(a).arg(root);
    if (b > 0)
        text += QStringLiteral(" + %1").arg(b);
    else if (b < 0)
        text += QStringLiteral(" - %1").arg(-b);
    return text;
}

namespace dimname {

static const QSet<QString> &reservedWords()
{
    static const QSet<QString> words = {
        // Python keywords (3.13), soft keywords excluded since they are valid names
        QStringLiteral("False"), QStringLiteral("None"), QStringLiteral("True"), QStringLiteral("and"),
        QStringLiteral("as"), QStringLiteral("assert"), QStringLiteral("async"), QStringLiteral("await"),
        QStringLiteral("break"), QStringLiteral("class"), QStringLiteral("continue"), QStringLiteral("def"),
        QStringLiteral("del"), QStringLiteral("elif"), QStringLiteral("else"), QStringLiteral("except"),
        QStringLiteral("finally"), QStringLiteral("for"), QStringLiteral("from"), QStringLiteral("global"),
        QStringLiteral("if"), QStringLiteral("import"), QStringLiteral("in"), QStringLiteral("is"),
        QStringLiteral("lambda"), QStringLiteral("nonlocal"), QStringLiteral("not"), QStringLiteral("or"),
        QStringLiteral("pass"), QStringLiteral("raise"), QStringLiteral("return"), QStringLiteral("try"),
        QStringLiteral("while"), QStringLiteral("with"), QStringLiteral("yield"),
        // the per-dimension keywords of docs/spec-format.md
        QStringLiteral("static"), QStringLiteral("auto"), QStringLiteral("dynamic")};
    return words;
}

static bool isIdentStart(QChar c) { return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || c == u'_'; }
static bool isIdentChar(QChar c) { return isIdentStart(c) || (c >= u'0' && c <= u'9'); }

QString whyInvalid(const QString &name)
{
    if (name.isEmpty())
        return QStringLiteral("a Dim name cannot be empty");
    if (!isIdentStart(name.front()))
        return QStringLiteral("%1 is not a Python identifier (it must start with a letter or '_')").arg(TerminalText::quoted(name));
    for (QChar c : name) {
        if (!isIdentChar(c))
            return QStringLiteral("%1 is not a Python identifier (character %2)").arg(TerminalText::quoted(name), TerminalText::quoted(QString(c)));
    }
    if (reservedWords().contains(name))
        return QStringLiteral("'%1' is a reserved word and cannot name a Dim").arg(name);
    return {};
}

bool isValid(const QString &name) { return whyInvalid(name).isEmpty(); }

QString sanitize(const QString &text)
{
    QString out;
    out.reserve(text.size());
    for (QChar c : text) {
        if (isIdentChar(c))
            out += c;
        else if (!out.endsWith(u'_'))
            out += u'_';
    }
    while (out.endsWith(u'_') && out.size() > 1)
        out.chop(1);
    if (out.isEmpty() || out == QLatin1String("_"))
        out = QStringLiteral("d");
    if (!isIdentStart(out.front()))
        out.prepend(QStringLiteral("d_"));
    if (reservedWords().contains(out))
        out += QStringLiteral("_dim");
    return out;
}

} // namespace dimname
} // namespace dimscope
