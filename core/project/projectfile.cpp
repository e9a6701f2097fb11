// SPDX-License-Identifier: GPL-3.0-or-later
#include "project/projectfile.h"

#include "shapes/constraintsetjson.h"
#include "shapes/jsontext.h"
#include "util/regularfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace dimscope {

static const char kFormat[] = "dimscope.project";

QByteArray ProjectFile::toJson(const ProjectFile &project, const QString &projectPath)
{
    const QDir base = QFileInfo(projectPath).absoluteDir();
    QJsonObject root;
    root.insert(QStringLiteral("format"), QLatin1String(kFormat));
    root.insert(QStringLiteral("version"), kVersion);
    root.insert(QStringLiteral("capture"), project.capturePath.isEmpty()
                    ? QJsonValue(QJsonValue::Null)
                    : QJsonValue(QDir::fromNativeSeparators(base.relativeFilePath(project.capturePath))));
    root.insert(QStringLiteral("model"), project.modelRef.isEmpty() ? QJsonValue(QJsonValue::Null)
                                                                     : QJsonValue(project.modelRef));
    // The constraint set is spliced in as written by ConstraintSetJson (a QJsonObject
    // would sort its leaves, and their order is part of the set).
    root.insert(QStringLiteral("constraints"), QStringLiteral("@constraints@"));
    QJsonObject exportObj;
    exportObj.insert(QStringLiteral("device"), project.exportOptions.device);
    exportObj.insert(QStringLiteral("call"), project.exportOptions.exampleCall < 0
                                                 ? QJsonValue(QJsonValue::Null)
                                                 : QJsonValue(project.exportOptions.exampleCall));
    exportObj.insert(QStringLiteral("strict"), project.exportOptions.strict);
    exportObj.insert(QStringLiteral("fix_loop"), project.exportOptions.fixLoop);
    root.insert(QStringLiteral("export"), exportObj);
    QByteArray text = QJsonDocument(root).toJson(QJsonDocument::Indented);
    const QByteArray constraints = project.constraints
        ? ConstraintSetJson::write(*project.constraints).trimmed().replace("\n", "\n    ")
        : QByteArray("null");
    return text.replace("\"@constraints@\"", constraints);
}

bool ProjectFile::write(const QString &path, const ProjectFile &project, QString *error)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(toJson(project, path)) < 0 || !f.commit()) {
        if (error)
            *error = QStringLiteral("%1: cannot save: %2").arg(path, f.errorString());
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

std::optional<ProjectFile> ProjectFile::read(const QString &path, QString *error)
{
    // A regular file only (a FIFO would block the open), and never more than a
    // project can reasonably be, whatever the file grows to while it is read.
    QString why;
    const std::optional<QByteArray> read = RegularFile::readAll(path, kMaxBytes, &why);
    if (!read) {
        fail(error, path, why);
        return std::nullopt;
    }
    const QByteArray &bytes = *read;
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        fail(error, path, QStringLiteral("invalid JSON at offset %1: %2").arg(parseError.offset).arg(parseError.errorString()));
        return std::nullopt;
    }
    if (!doc.isObject()) {
        fail(error, path, QStringLiteral("the document is not a JSON object"));
        return std::nullopt;
    }
    const QJsonObject root = doc.object();
    if (root.value(QStringLiteral("format")).toString() != QLatin1String(kFormat)) {
        fail(error, path, QStringLiteral("format: expected \"%1\", not a dimscope project").arg(QLatin1String(kFormat)));
        return std::nullopt;
    }
    const QJsonValue version = root.value(QStringLiteral("version"));
    if (!version.isDouble() || version.toDouble() != kVersion) {
        fail(error, path, QStringLiteral("version: %1 is not supported (this dimscope reads version %2)")
                              .arg(jsontext::valueText(version))
                              .arg(kVersion));
        return std::nullopt;
    }
    ProjectFile project;
    const QDir base = QFileInfo(path).absoluteDir();
    const QJsonValue capture = root.value(QStringLiteral("capture"));
    if (capture.isString())
        project.capturePath = QDir::cleanPath(base.absoluteFilePath(capture.toString()));
    else if (!capture.isNull() && !capture.isUndefined()) {
        fail(error, path, QStringLiteral("capture: expected a path string or null"));
        return std::nullopt;
    }
    const QJsonValue model = root.value(QStringLiteral("model"));
    if (model.isString())
        project.modelRef = model.toString();
    else if (!model.isNull() && !model.isUndefined()) {
        fail(error, path, QStringLiteral("model: expected a model reference string or null"));
        return std::nullopt;
    }
    const QJsonValue constraints = root.value(QStringLiteral("constraints"));
    if (constraints.isObject()) {
        QString why;
        auto set = ConstraintSetJson::read(jsontext::memberText(bytes, QStringLiteral("constraints")), &why);
        if (!set) {
            fail(error, path, QStringLiteral("constraints: %1").arg(why));
            return std::nullopt;
        }
        project.constraints = *set;
    } else if (!constraints.isNull() && !constraints.isUndefined()) {
        fail(error, path, QStringLiteral("constraints: expected a dimscope.constraints object or null"));
        return std::nullopt;
    }
    const QJsonValue exportValue = root.value(QStringLiteral("export"));
    if (exportValue.isObject()) {
        const QJsonObject e = exportValue.toObject();
        const QString device = e.value(QStringLiteral("device")).toString(QStringLiteral("cpu"));
        if (device != QLatin1String("cpu") && device != QLatin1String("cuda")) {
            fail(error, path, QStringLiteral("export.device: \"%1\" is neither \"cpu\" nor \"cuda\"").arg(device));
            return std::nullopt;
        }
        project.exportOptions.device = device;
        const QJsonValue call = e.value(QStringLiteral("call"));
        if (call.isDouble() && call.toDouble() >= 0 && call.toDouble() == double(call.toInt()))
            project.exportOptions.exampleCall = call.toInt();
        else if (!call.isNull() && !call.isUndefined()) {
            fail(error, path, QStringLiteral("export.call: expected a call index >= 0 or null"));
            return std::nullopt;
        }
        project.exportOptions.strict = e.value(QStringLiteral("strict")).toBool(false);
        const QJsonValue fixLoop = e.value(QStringLiteral("fix_loop"));
        if (!fixLoop.isBool() && !fixLoop.isUndefined()) {
            fail(error, path, QStringLiteral("export.fix_loop: expected true or false"));
            return std::nullopt;
        }
        project.exportOptions.fixLoop = fixLoop.toBool(true);
    } else if (!exportValue.isNull() && !exportValue.isUndefined()) {
        fail(error, path, QStringLiteral("export: expected an object"));
        return std::nullopt;
    }
    return project;
}

} // namespace dimscope
