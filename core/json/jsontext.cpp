// SPDX-License-Identifier: GPL-3.0-or-later
#include "json/jsontext.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace dimscope::jsontext {

QString valueText(const QJsonValue &value)
{
    // QJsonDocument writes only arrays and objects: write [value] and strip the brackets.
    return QString::fromUtf8(QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
}

QString quote(const QString &text)
{
    QString out;
    out.reserve(text.size() + 2);
    out += u'"';
    for (QChar c : text) {
        switch (c.unicode()) {
        case '"': out += QLatin1String("\\\""); break;
        case '\\': out += QLatin1String("\\\\"); break;
        case '\n': out += QLatin1String("\\n"); break;
        case '\r': out += QLatin1String("\\r"); break;
        case '\t': out += QLatin1String("\\t"); break;
        case '\b': out += QLatin1String("\\b"); break;
        case '\f': out += QLatin1String("\\f"); break;
        default:
            if (c.unicode() < 0x20)
                out += QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
            else
                out += c;
        }
    }
    out += u'"';
    return out;
}

namespace {

// A forward-only scanner over text that QJsonDocument already accepted.
struct Scanner {
    const QByteArray &s;
    int i = 0;

    void ws()
    {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
            ++i;
    }
    QString string()
    {
        const int start = i++;
        while (i < s.size() && s[i] != '"')
            i += s[i] == '\\' ? 2 : 1;
        ++i;
        const QByteArray token = "[" + s.mid(start, i - start) + "]";
        return QJsonDocument::fromJson(token).array().at(0).toString();
    }
    void value()
    {
        ws();
        if (i >= s.size())
            return;
        const char c = s[i];
        if (c == '"') {
            string();
        } else if (c == '{' || c == '[') {
            const char close = c == '{' ? '}' : ']';
            ++i;
            ws();
            if (i < s.size() && s[i] == close) {
                ++i;
                return;
            }
            while (i < s.size()) {
                ws();
                if (c == '{') {
                    string();
                    ws();
                    ++i; // ':'
                }
                value();
                ws();
                if (i < s.size() && s[i] == ',') {
                    ++i;
                    continue;
                }
                ++i; // close
                return;
            }
        } else {
            while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\n'
                   && s[i] != '\r' && s[i] != '\t')
                ++i;
        }
    }
    QStringList objectKeys()
    {
        QStringList keys;
        ws();
        if (i >= s.size() || s[i] != '{')
            return keys;
        ++i;
        ws();
        if (i < s.size() && s[i] == '}')
            return keys;
        while (i < s.size()) {
            ws();
            keys << string();
            ws();
            ++i; // ':'
            value();
            ws();
            if (i < s.size() && s[i] == ',') {
                ++i;
                continue;
            }
            break;
        }
        return keys;
    }
};

} // namespace

// Moves the scanner to the value of the top-level `member`; false when absent.
static bool seekMember(Scanner &sc, const QString &member)
{
    const QByteArray &json = sc.s;
    sc.ws();
    if (sc.i >= json.size() || json[sc.i] != '{')
        return false;
    ++sc.i;
    while (sc.i < json.size()) {
        sc.ws();
        if (sc.i >= json.size() || json[sc.i] != '"')
            return false;
        const QString key = sc.string();
        sc.ws();
        ++sc.i; // ':'
        if (key == member) {
            sc.ws();
            return true;
        }
        sc.value();
        sc.ws();
        if (sc.i < json.size() && json[sc.i] == ',') {
            ++sc.i;
            continue;
        }
        break;
    }
    return false;
}

QByteArray memberText(const QByteArray &json, const QString &member)
{
    Scanner sc{json};
    if (!seekMember(sc, member))
        return {};
    const int start = sc.i;
    sc.value();
    return json.mid(start, sc.i - start);
}

QStringList memberKeyOrder(const QByteArray &json, const QString &member)
{
    Scanner sc{json};
    sc.ws();
    if (sc.i >= json.size() || json[sc.i] != '{')
        return {};
    ++sc.i;
    while (sc.i < json.size()) {
        sc.ws();
        if (sc.i >= json.size() || json[sc.i] != '"')
            return {};
        const QString key = sc.string();
        sc.ws();
        ++sc.i; // ':'
        if (key == member)
            return sc.objectKeys();
        sc.value();
        sc.ws();
        if (sc.i < json.size() && json[sc.i] == ',') {
            ++sc.i;
            continue;
        }
        break;
    }
    return {};
}

QString position(const QByteArray &json, int offset)
{
    int line = 1, col = 1;
    for (int i = 0; i < offset && i < json.size(); ++i) {
        if (json[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return QStringLiteral("line %1, column %2").arg(line).arg(col);
}

} // namespace dimscope::jsontext
