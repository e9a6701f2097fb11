// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/exporterror.h"

#include <QRegularExpression>
#include <QStringList>

namespace dimscope {

ExportViolation ExportErrorParser::parseViolation(const QString &line)
{
    ExportViolation v;
    v.text = line.trimmed();
    if (v.text.startsWith(QLatin1String("- ")))
        v.text = v.text.mid(2);
    static const QRegularExpression relaxed(
        QStringLiteral(R"(^Not all values of RelaxedUnspecConstraint\((.+?)\) are valid because .+ was inferred to be a constant \((-?\d+)\)\.?$)"));
    static const QRegularExpression constant(
        QStringLiteral(R"(^Not all values of (\w+) = (.+?) in the specified range ?(.*?) are valid because \w+ was inferred to be a constant \((-?\d+)\)\.?$)"));
    static const QRegularExpression guard(
        QStringLiteral(R"(^Not all values of (\w+) = (.+?) in the specified range ?(.*?) satisfy the generated guard (.+?)\.?$)"));
    static const QRegularExpression equal(
        QStringLiteral(R"(^The values of (\w+) = (.+?) and (\w+) = (.+?) must always be equal\.?$)"));
    static const QRegularExpression related(
        QStringLiteral(R"(^The values of (\w+) = (.+?) must always be related to the values of (\w+) = (.+?) by (.+?)\.?$)"));
    static const QRegularExpression marked(
        QStringLiteral(R"(^You marked (\w+) as dynamic but your code specialized it to be a constant \((-?\d+)\))"));
    QRegularExpressionMatch m;
    if ((m = relaxed.match(v.text)).hasMatch()) {
        v.kind = ExportViolation::Kind::DynamicSpecialized;
        v.source = m.captured(1);
        v.constant = m.captured(2).toLongLong();
    } else if ((m = constant.match(v.text)).hasMatch()) {
        v.kind = ExportViolation::Kind::Specialized;
        v.dim = m.captured(1);
        v.source = m.captured(2);
        v.range = m.captured(3).trimmed();
        v.constant = m.captured(4).toLongLong();
    } else if ((m = marked.match(v.text)).hasMatch()) {
        v.kind = ExportViolation::Kind::Specialized;
        v.dim = m.captured(1);
        v.constant = m.captured(2).toLongLong();
    } else if ((m = guard.match(v.text)).hasMatch()) {
        v.kind = ExportViolation::Kind::Guard;
        v.dim = m.captured(1);
        v.source = m.captured(2);
        v.range = m.captured(3).trimmed();
        v.guard = m.captured(4);
    } else if ((m = equal.match(v.text)).hasMatch()) {
        v.kind = ExportViolation::Kind::Equal;
        v.dim = m.captured(1);
        v.source = m.captured(2);
        v.otherDim = m.captured(3);
        v.otherSource = m.captured(4);
    } else if ((m = related.match(v.text)).hasMatch()) {
        v.kind = ExportViolation::Kind::Related;
        v.dim = m.captured(1);
        v.source = m.captured(2);
        v.otherDim = m.captured(3);
        v.otherSource = m.captured(4);
        v.relation = m.captured(5);
    }
    return v;
}

QVector<ExportViolation> ExportErrorParser::parseViolations(const QString &message)
{
    QVector<ExportViolation> out;
    const QStringList lines = message.split(QLatin1Char('\n'));
    bool inViolations = false;
    for (const QString &line : lines) {
        if (line.startsWith(QLatin1String("Constraints violated"))) {
            inViolations = true;
            continue;
        }
        if (line.trimmed() == QLatin1String("Suggested fixes:")) {
            inViolations = false;
            continue;
        }
        if (inViolations && line.trimmed().startsWith(QLatin1String("- ")))
            out << parseViolation(line);
    }
    return out;
}

SuggestedFix ExportErrorParser::parseFix(const QString &text)
{
    SuggestedFix f;
    f.line = text.trimmed();
    static const QRegularExpression specialize(QStringLiteral(R"(^(\w+)\s*=\s*(-?\d+)$)"));
    static const QRegularExpression range(QStringLiteral(R"(^(\w+)\s*=\s*Dim\(\s*['"](\w+)['"]\s*((?:,\s*\w+\s*=\s*[-\w]+\s*)*)\)$)"));
    static const QRegularExpression equal(QStringLiteral(R"(^(\w+)\s*=\s*([A-Za-z_]\w*)$)"));
    static const QRegularExpression derived(
        QStringLiteral(R"(^(\w+)\s*=\s*(?:(\d+)\s*\*\s*)?([A-Za-z_]\w*)(?:\s*\*\s*(\d+))?\s*(?:([+-])\s*(\d+))?$)"));
    static const QRegularExpression unnamed(QStringLiteral(R"(^(\w+)\s*=\s*Dim\.DYNAMIC$)"));
    QRegularExpressionMatch m;
    if ((m = unnamed.match(f.line)).hasMatch()) {
        f.kind = SuggestedFix::Kind::Unnamed;
        f.name = m.captured(1);
    } else if ((m = specialize.match(f.line)).hasMatch()) {
        f.kind = SuggestedFix::Kind::Specialize;
        f.name = m.captured(1);
        f.value = m.captured(2).toLongLong();
    } else if ((m = range.match(f.line)).hasMatch()) {
        f.name = m.captured(1);
        if (m.captured(2) != f.name)
            return f; // NAME = Dim('OTHER', ...) is not a form torch prints
        static const QRegularExpression kw(QStringLiteral(R"(,\s*(\w+)\s*=\s*([-\w]+))"));
        auto it = kw.globalMatch(m.captured(3));
        while (it.hasNext()) {
            const auto k = it.next();
            const QString key = k.captured(1), value = k.captured(2);
            bool ok = false;
            const qint64 n = value.toLongLong(&ok);
            if (key == QLatin1String("max") && (value == QLatin1String("oo") || value == QLatin1String("int_oo")))
                f.max.reset();
            else if (!ok || (key != QLatin1String("min") && key != QLatin1String("max")))
                return f;
            else if (key == QLatin1String("min"))
                f.min = n;
            else
                f.max = n;
        }
        f.kind = SuggestedFix::Kind::Range;
    } else if ((m = equal.match(f.line)).hasMatch()) {
        f.kind = SuggestedFix::Kind::Equal;
        f.name = m.captured(1);
        f.other = m.captured(2);
    } else if ((m = derived.match(f.line)).hasMatch() && !(m.captured(2).isEmpty() && m.captured(4).isEmpty() && m.captured(5).isEmpty())) {
        if (!m.captured(2).isEmpty() && !m.captured(4).isEmpty())
            return f;
        f.kind = SuggestedFix::Kind::Derived;
        f.name = m.captured(1);
        f.other = m.captured(3);
        f.a = !m.captured(2).isEmpty() ? m.captured(2).toLongLong() : !m.captured(4).isEmpty() ? m.captured(4).toLongLong() : 1;
        f.b = m.captured(6).isEmpty() ? 0 : m.captured(6).toLongLong() * (m.captured(5) == QLatin1String("-") ? -1 : 1);
    }
    return f;
}

QVector<SuggestedFix> ExportErrorParser::parseFixes(const QString &message)
{
    QVector<SuggestedFix> out;
    const QStringList lines = message.split(QLatin1Char('\n'));
    bool inFixes = false;
    for (const QString &line : lines) {
        if (line.trimmed() == QLatin1String("Suggested fixes:")) {
            inFixes = true;
            continue;
        }
        if (!inFixes)
            continue;
        // The section is the indented lines after the header; anything else ends it.
        if (line.trimmed().isEmpty() || !line.startsWith(QLatin1Char(' ')))
            break;
        out << parseFix(line);
    }
    return out;
}

} // namespace dimscope
