// SPDX-License-Identifier: GPL-3.0-or-later
#include "project/modelreference.h"

#include <QFileInfo>
#include <QStringList>

namespace dimscope {

namespace {

const QLatin1String kOwnPackage("dimscope.");

// A dotted Python name ("pkg.mod", "Factory.build"): what import and getattr accept.
bool isDottedName(const QString &text)
{
    if (text.isEmpty())
        return false;
    for (const QString &part : text.split(QLatin1Char('.'))) {
        if (part.isEmpty() || part.at(0).isDigit())
            return false;
        for (const QChar c : part) {
            if (!c.isLetterOrNumber() && c != QLatin1Char('_'))
                return false;
        }
    }
    return true;
}

// `text` as an absolute, clean path under `base`: '..' is cut from the text, as for a
// project's capture. Everything after (the canonical path consent is given to, the
// worker's realpath) starts from this one text, so the file asked about is the file
// that runs. To QDir a leading ':' names a Qt resource: here it is the start of a file
// name in `base` like any other.
QString absolutePath(const QString &text, const QDir &base)
{
    const QString relative = text.startsWith(QLatin1Char(':')) ? QStringLiteral("./") + text : text;
    return QDir::cleanPath(base.absoluteFilePath(relative));
}

// The parts of a reference as the worker splits it: the whole text a folder, or the
// last ':' between a target and a callable.
struct Parts {
    bool folder = false;
    QString target;
    QString callable;
};

Parts split(const QString &text, const QDir &base)
{
    Parts parts;
    const int colon = text.lastIndexOf(QLatin1Char(':'));
    // "dimscope.…" is always a module of dimscope's package: a folder of that name
    // beside the project does not turn it into something else.
    parts.folder = !text.startsWith(kOwnPackage) && (colon < 0 || QFileInfo(absolutePath(text, base)).isDir());
    if (!parts.folder && colon >= 0) {
        parts.target = text.left(colon);
        parts.callable = text.mid(colon + 1);
    } else if (!parts.folder) {
        parts.target = text; // "dimscope.x": no callable
    }
    return parts;
}

bool isFileTarget(const QString &target) { return target.endsWith(QLatin1String(".py")); }

} // namespace

QString ModelReference::disguise(const QString &text)
{
    if (!text.startsWith(kOwnPackage))
        return {};
    const QString quoted = QLatin1Char('"') + text + QLatin1Char('"');
    for (int i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        const bool pathPart = c == QLatin1Char('/') || c == QLatin1Char('\\')
            || (c == QLatin1Char('.') && i + 1 < text.size() && text.at(i + 1) == QLatin1Char('.'));
        if (pathPart) {
            return QStringLiteral("the model reference %1 names dimscope's own package (\"dimscope.\") but holds a "
                                  "path ('%2' at character %3): refused, nothing was run")
                .arg(quoted, text.mid(i, c == QLatin1Char('.') ? 2 : 1))
                .arg(i + 1);
        }
    }
    const int colon = text.lastIndexOf(QLatin1Char(':'));
    if (colon >= 0 && isFileTarget(text.left(colon))) {
        return QStringLiteral("the model reference %1 names dimscope's own package (\"dimscope.\") but is a .py "
                              "file path: refused, nothing was run")
            .arg(quoted);
    }
    return {};
}

std::optional<ModelReference> ModelReference::resolve(const QString &text, const QDir &base, QString *error)
{
    auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    const QString disguised = disguise(text);
    if (!disguised.isEmpty())
        return fail(disguised);
    if (text.isEmpty())
        return fail(QStringLiteral("the model reference is empty"));
    const QString quoted = QLatin1Char('"') + text + QLatin1Char('"');
    ModelReference ref;
    const Parts parts = split(text, base);
    if (parts.folder) {
        ref.m_kind = Kind::Folder;
        ref.m_path = absolutePath(text, base);
        if (!QFileInfo(ref.m_path).isDir()) {
            return fail(QStringLiteral("the model reference %1 is no folder (%2) and has no ':callable' (expected "
                                       "package.module:callable, path/to/file.py:callable or a Hugging Face model folder)")
                            .arg(quoted, ref.m_path));
        }
        return ref;
    }
    if (!isDottedName(parts.callable)) {
        return fail(QStringLiteral("the model reference %1: '%2' after the last ':' is not a Python name")
                        .arg(quoted, parts.callable));
    }
    ref.m_callable = parts.callable;
    if (isFileTarget(parts.target)) {
        ref.m_kind = Kind::File;
        ref.m_path = absolutePath(parts.target, base);
        return ref;
    }
    if (!isDottedName(parts.target)) {
        return fail(QStringLiteral("the model reference %1: '%2' is neither a module name (package.module) nor a .py file")
                        .arg(quoted, parts.target));
    }
    ref.m_kind = Kind::Module;
    ref.m_module = parts.target;
    return ref;
}

std::optional<QString> ModelReference::fromCommandLine(const QString &text, const QDir &cwd, QString *error)
{
    const QString disguised = disguise(text);
    if (!disguised.isEmpty()) {
        *error = QStringLiteral("--model: %1").arg(disguised);
        return std::nullopt;
    }
    return absoluteIn(text, cwd);
}

QString ModelReference::absoluteIn(const QString &text, const QDir &base)
{
    if (text.isEmpty() || !disguise(text).isEmpty())
        return text;
    const Parts parts = split(text, base);
    if (parts.folder)
        return absolutePath(text, base);
    if (!parts.target.isEmpty() && isFileTarget(parts.target))
        return absolutePath(parts.target, base) + QLatin1Char(':') + parts.callable;
    return text;
}

QString ModelReference::relativeIn(const QString &text, const QDir &base)
{
    if (text.isEmpty() || !disguise(text).isEmpty())
        return text;
    const Parts parts = split(text, base);
    QString relative;
    if (parts.folder)
        relative = QDir::fromNativeSeparators(base.relativeFilePath(text));
    else if (!parts.target.isEmpty() && isFileTarget(parts.target))
        relative = QDir::fromNativeSeparators(base.relativeFilePath(parts.target)) + QLatin1Char(':') + parts.callable;
    else
        return text;
    // A relative text that reads back as something else ("dimscope.x/m.py:f" would be
    // refused as a disguise) is written with "./" before it, else absolute.
    for (const QString &candidate : QStringList{relative, QStringLiteral("./") + relative}) {
        if (absoluteIn(candidate, base) == text)
            return candidate;
    }
    return text;
}

QString ModelReference::canonicalPath() const
{
    return m_path.isEmpty() ? QString() : QFileInfo(m_path).canonicalFilePath();
}

QString ModelReference::text() const
{
    switch (m_kind) {
    case Kind::Folder:
        return m_path;
    case Kind::File:
        return m_path + QLatin1Char(':') + m_callable;
    case Kind::Module:
        break;
    }
    return m_module + QLatin1Char(':') + m_callable;
}

bool ModelReference::isDimscopeOwn() const
{
    return m_kind == Kind::Module && (m_module == QLatin1String("dimscope") || m_module.startsWith(kOwnPackage));
}

} // namespace dimscope
