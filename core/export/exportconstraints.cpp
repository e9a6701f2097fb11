// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/exportconstraints.h"

#include "inference/captureanalysis.h"
#include "constraints/constraintsetjson.h"
#include "json/jsontext.h"
#include "util/regularfile.h"
#include "util/terminaltext.h"

#include <QJsonDocument>

namespace dimscope {

namespace {

bool readJsonObject(const QString &path, QJsonObject *object, QByteArray *text, QString *error)
{
    // A constraints or project file is small; a FIFO or a device must not hang the CLI.
    QString why;
    const std::optional<QByteArray> bytes = RegularFile::readAll(path, qint64(64) << 20, &why);
    if (!bytes) {
        *error = QStringLiteral("%1: %2").arg(path, why);
        return false;
    }
    QJsonParseError perr;
    const QJsonDocument doc = QJsonDocument::fromJson(*bytes, &perr);
    if (!doc.isObject()) {
        *error = perr.error != QJsonParseError::NoError
                     ? QStringLiteral("%1: not JSON (%2 at offset %3)").arg(path, perr.errorString()).arg(perr.offset)
                     : QStringLiteral("%1: not a JSON object").arg(path);
        return false;
    }
    *object = doc.object();
    *text = *bytes;
    return true;
}

} // namespace

std::optional<ExportConstraints> ExportConstraints::read(const QString &path, QString *error)
{
    QJsonObject doc;
    QByteArray text; // read from the text: the constraint set keeps the file's order of leaves
    if (!readJsonObject(path, &doc, &text, error))
        return std::nullopt;
    ExportConstraints c;
    const QString format = doc.value(QLatin1String("format")).toString();
    if (format == QLatin1String("dimscope.dynamic_shapes")) {
        c.spec = doc;
        c.source = path + QStringLiteral(" (dynamic_shapes spec, used as is)");
        return c;
    }
    QString where = path;
    if (format == QLatin1String("dimscope.project")) {
        // A project file: its constraint set.
        if (!doc.value(QLatin1String("constraints")).isObject()) {
            *error = QStringLiteral("%1: the project has no \"constraints\" object").arg(path);
            return std::nullopt;
        }
        text = jsontext::memberText(text, QStringLiteral("constraints"));
        where += QStringLiteral(" (constraints)");
    } else if (format != QLatin1String("dimscope.constraints")) {
        *error = QStringLiteral("%1: format %2 is neither dimscope.constraints, dimscope.dynamic_shapes nor "
                                "dimscope.project")
                     .arg(path, TerminalText::quoted(format));
        return std::nullopt;
    }
    QString readError;
    c.set = ConstraintSetJson::read(text, &readError);
    if (!c.set) {
        *error = QStringLiteral("%1: %2").arg(where, readError);
        return std::nullopt;
    }
    c.source = where;
    return c;
}

std::optional<ExportConstraints> ExportConstraints::inferred(const Capture &capture, QStringList *warnings,
                                                             QStringList *errors)
{
    const InferenceResult r = CaptureAnalysis::infer(capture);
    *warnings = r.texts(InferenceMessage::Severity::Warning);
    *errors = r.texts(InferenceMessage::Severity::Error);
    if (r.hasErrors())
        return std::nullopt;
    return ExportConstraints{r.constraints, {}, QStringLiteral("inferred from the capture")};
}

} // namespace dimscope
