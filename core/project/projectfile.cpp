// SPDX-License-Identifier: GPL-3.0-or-later
#include "project/projectfile.h"

#include "project/modelreference.h"
#include "constraints/constraintsetjson.h"
#include "json/jsontext.h"
#include "util/atomicfile.h"
#include "util/regularfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPair>
#include <QVector>

namespace dimscope {

static const char kFormat[] = "dimscope.project";

namespace {

// `"key": value` lines of one object, in the order given, at one indentation level.
QString objectText(const QVector<QPair<QString, QString>> &members, const QString &indent)
{
    QString out = QStringLiteral("{\n");
    for (int i = 0; i < members.size(); ++i) {
        out += indent + QLatin1String("  ") + jsontext::quote(members.at(i).first) + QLatin1String(": ")
            + members.at(i).second + QLatin1String(i + 1 < members.size() ? ",\n" : "\n");
    }
    return out + indent + QLatin1Char('}');
}

// A path as the project stores it: relative to the project's folder, '/' separated.
QString projectRelative(const QDir &base, const QString &path)
{
    return QDir::fromNativeSeparators(base.relativeFilePath(path));
}

QString nullOr(const QString &text) { return text.isEmpty() ? QStringLiteral("null") : jsontext::quote(text); }

} // namespace

// Written by hand, not through QJsonObject (which sorts its keys): the keys keep the
// order of docs/project-format.md and every level indents by two spaces, so saving an
// edited project changes only the lines that changed.
QByteArray ProjectFile::toJson(const ProjectFile &project, const QString &projectPath)
{
    const QDir base = QFileInfo(projectPath).absoluteDir();
    const ExportOptions &o = project.exportOptions;
    QVector<QPair<QString, QString>> exportMembers{
        {QStringLiteral("device"), jsontext::quote(o.device)},
        {QStringLiteral("call"), o.exampleCall < 0 ? QStringLiteral("null") : QString::number(o.exampleCall)},
        {QStringLiteral("strict"), o.strict ? QStringLiteral("true") : QStringLiteral("false")},
        {QStringLiteral("fix_loop"), o.fixLoop ? QStringLiteral("true") : QStringLiteral("false")}};
    // Written only when set: projects that never chose it keep their bytes.
    if (o.separatePrograms)
        exportMembers.append({QStringLiteral("separate_programs"), QStringLiteral("true")});
    if (!o.heldOutCapture.isEmpty())
        exportMembers.append({QStringLiteral("verify_with"), jsontext::quote(projectRelative(base, o.heldOutCapture))});
    const QString exportText = objectText(exportMembers, QStringLiteral("  "));
    // The constraint set as ConstraintSetJson writes it (its leaves keep their order),
    // indented one level.
    const QString constraints = project.constraints
        ? QString::fromUtf8(ConstraintSetJson::write(*project.constraints).trimmed()).replace(QLatin1Char('\n'), QLatin1String("\n  "))
        : QStringLiteral("null");
    const QString capture = project.capturePath.isEmpty() ? QString() : projectRelative(base, project.capturePath);
    const QString text = objectText({{QStringLiteral("format"), jsontext::quote(QLatin1String(kFormat))},
                                     {QStringLiteral("version"), QString::number(kVersion)},
                                     {QStringLiteral("capture"), nullOr(capture)},
                                     {QStringLiteral("model"), nullOr(ModelReference::relativeIn(project.modelRef, base))},
                                     {QStringLiteral("constraints"), constraints},
                                     {QStringLiteral("export"), exportText}},
                                    QString());
    return (text + QLatin1Char('\n')).toUtf8();
}

bool ProjectFile::write(const QString &path, const ProjectFile &project, QString *error)
{
    QString why;
    if (!AtomicFile::write(path, toJson(project, path), &why)) {
        if (error)
            *error = QStringLiteral("%1: cannot save: %2").arg(path, why);
        return false;
    }
    return true;
}

static bool fail(QString *error, const QString &path, const QString &what)
{
    if (error)
        *error = QStringLiteral("%1: %2").arg(QFileInfo(path).fileName(), what);
    return false;
}

namespace {

// Each reader of a part of the project returns false with `why` saying what is wrong
// and where in the document; ProjectFile::read puts the file's name in front.

// The document's top-level object, once it is a dimscope project of this version.
std::optional<QJsonObject> projectObject(const QByteArray &bytes, QString *why)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *why = QStringLiteral("invalid JSON at offset %1: %2").arg(parseError.offset).arg(parseError.errorString());
        return std::nullopt;
    }
    if (!doc.isObject()) {
        *why = QStringLiteral("the document is not a JSON object");
        return std::nullopt;
    }
    const QJsonObject root = doc.object();
    if (root.value(QStringLiteral("format")).toString() != QLatin1String(kFormat)) {
        *why = QStringLiteral("format: expected \"%1\", not a dimscope project").arg(QLatin1String(kFormat));
        return std::nullopt;
    }
    const QJsonValue version = root.value(QStringLiteral("version"));
    if (!version.isDouble() || version.toDouble() != ProjectFile::kVersion) {
        *why = QStringLiteral("version: %1 is not supported (this dimscope reads version %2)")
                   .arg(jsontext::valueText(version))
                   .arg(ProjectFile::kVersion);
        return std::nullopt;
    }
    return root;
}

// "capture": a path relative to the project's folder, or null.
// A file path stored relative to the project (its capture, the held-out capture):
// absolute in memory; `field` names it in errors ("capture", "export.verify_with").
bool readProjectPath(const QJsonValue &value, const QDir &base, const QString &field, QString &path, QString *why)
{
    // JSON's \uD800 escapes can spell strings that are no Unicode text: no file has
    // such a path, and writing the project would change it to '?' (found by fuzz_project).
    if (value.isString() && !value.toString().isValidUtf16()) {
        *why = QStringLiteral("%1: the path is not valid Unicode (an unpaired surrogate), so no file has it").arg(field);
        return false;
    }
    if (value.isString()) {
        // To QDir a leading ':' names a Qt resource, an absolute path: in a project it
        // is the start of a file name beside the project like any other (a capture
        // named ":c.safetensors" was saved back as "../../:c.safetensors"; fuzz_project).
        const QString text = value.toString();
        const QString relative = text.startsWith(QLatin1Char(':')) ? QStringLiteral("./") + text : text;
        path = QDir::cleanPath(base.absoluteFilePath(relative));
    } else if (!value.isNull() && !value.isUndefined()) {
        *why = QStringLiteral("%1: expected a path string or null").arg(field);
        return false;
    }
    return true;
}

// "model": a model reference (ModelReference), or null.
bool readModelReference(const QJsonValue &model, const QDir &base, QString &modelRef, QString *why)
{
    if (model.isString() && !model.toString().isValidUtf16()) {
        *why = QStringLiteral("model: the reference is not valid Unicode (an unpaired surrogate), so no module has it");
        return false;
    }
    // A file or folder reference is the project's, like its capture: resolved against
    // the project's folder now, never later against whatever folder dimscope runs in.
    if (model.isString()) {
        modelRef = ModelReference::absoluteIn(model.toString(), base);
    } else if (!model.isNull() && !model.isUndefined()) {
        *why = QStringLiteral("model: expected a model reference string or null");
        return false;
    }
    return true;
}

// "constraints": a constraint set, read from the document's own text (its integers
// exactly, ConstraintSetJson), or null.
bool readConstraints(const QByteArray &bytes, const QJsonValue &constraints, std::optional<ConstraintSet> &out, QString *why)
{
    if (constraints.isObject()) {
        QString setWhy;
        auto set = ConstraintSetJson::read(jsontext::memberText(bytes, QStringLiteral("constraints")), &setWhy);
        if (!set) {
            *why = QStringLiteral("constraints: %1").arg(setWhy);
            return false;
        }
        out = *set;
    } else if (!constraints.isNull() && !constraints.isUndefined()) {
        *why = QStringLiteral("constraints: expected a dimscope.constraints object or null");
        return false;
    }
    return true;
}

// "export": the export options, or null for the defaults.
bool readExportOptions(const QJsonValue &exportValue, const QDir &base, ExportOptions &options, QString *why)
{
    if (exportValue.isNull() || exportValue.isUndefined())
        return true;
    if (!exportValue.isObject()) {
        *why = QStringLiteral("export: expected an object");
        return false;
    }
    const QJsonObject e = exportValue.toObject();
    const QString device = e.value(QStringLiteral("device")).toString(QStringLiteral("cpu"));
    if (device != QLatin1String("cpu") && device != QLatin1String("cuda")) {
        *why = QStringLiteral("export.device: \"%1\" is neither \"cpu\" nor \"cuda\"").arg(device);
        return false;
    }
    options.device = device;
    const QJsonValue call = e.value(QStringLiteral("call"));
    if (call.isDouble() && call.toDouble() >= 0 && call.toDouble() == double(call.toInt())) {
        options.exampleCall = call.toInt();
    } else if (!call.isNull() && !call.isUndefined()) {
        *why = QStringLiteral("export.call: expected a call index >= 0 or null");
        return false;
    }
    options.strict = e.value(QStringLiteral("strict")).toBool(false);
    const QJsonValue fixLoop = e.value(QStringLiteral("fix_loop"));
    if (!fixLoop.isBool() && !fixLoop.isUndefined()) {
        *why = QStringLiteral("export.fix_loop: expected true or false");
        return false;
    }
    options.fixLoop = fixLoop.toBool(true);
    const QJsonValue separate = e.value(QStringLiteral("separate_programs"));
    if (!separate.isBool() && !separate.isUndefined()) {
        *why = QStringLiteral("export.separate_programs: expected true or false");
        return false;
    }
    options.separatePrograms = separate.toBool(false);
    return readProjectPath(e.value(QStringLiteral("verify_with")), base, QStringLiteral("export.verify_with"),
                           options.heldOutCapture, why);
}

} // namespace

std::optional<ProjectFile> ProjectFile::read(const QString &path, QString *error)
{
    // A regular file only (a FIFO would block the open), and never more than a
    // project can reasonably be, whatever the file grows to while it is read.
    QString why;
    const std::optional<QByteArray> bytes = RegularFile::readAll(path, kMaxBytes, &why);
    const std::optional<QJsonObject> root = bytes ? projectObject(*bytes, &why) : std::nullopt;
    ProjectFile project;
    const QDir base = QFileInfo(path).absoluteDir();
    const bool ok = root
        && readProjectPath(root->value(QStringLiteral("capture")), base, QStringLiteral("capture"), project.capturePath, &why)
        && readModelReference(root->value(QStringLiteral("model")), base, project.modelRef, &why)
        && readConstraints(*bytes, root->value(QStringLiteral("constraints")), project.constraints, &why)
        && readExportOptions(root->value(QStringLiteral("export")), base, project.exportOptions, &why);
    if (!ok) {
        fail(error, path, why);
        return std::nullopt;
    }
    return project;
}

} // namespace dimscope
