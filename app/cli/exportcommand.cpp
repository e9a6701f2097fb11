// dimscope-cli export: runs torch.export through the Python worker and prints the
// progress, the verification table and, on failure, the violations and fixes.
#include "clicommand.h"

#include "export/exportclient.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTextStream>

using namespace dimscope;

namespace {

struct Options {
    QString model, capture, constraints, output, device = QStringLiteral("cpu");
    int call = -1;
    bool strict = false, fixLoop = false;
};

bool parse(const QStringList &args, Options *o, QString *error)
{
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args.at(i);
        auto value = [&](QString *into) {
            if (i + 1 >= args.size()) {
                *error = QStringLiteral("%1 needs a value").arg(a);
                return false;
            }
            *into = args.at(++i);
            return true;
        };
        if (a == QLatin1String("--model")) {
            if (!value(&o->model)) return false;
        } else if (a == QLatin1String("--capture")) {
            if (!value(&o->capture)) return false;
        } else if (a == QLatin1String("--constraints")) {
            if (!value(&o->constraints)) return false;
        } else if (a == QLatin1String("-o") || a == QLatin1String("--output")) {
            if (!value(&o->output)) return false;
        } else if (a == QLatin1String("--device")) {
            if (!value(&o->device)) return false;
            if (o->device != QLatin1String("cpu") && o->device != QLatin1String("cuda")) {
                *error = QStringLiteral("--device must be cpu or cuda, not '%1'").arg(o->device);
                return false;
            }
        } else if (a == QLatin1String("--call")) {
            QString v;
            if (!value(&v)) return false;
            bool ok = false;
            o->call = v.toInt(&ok);
            if (!ok || o->call < 0) {
                *error = QStringLiteral("--call needs a call index >= 0, not '%1'").arg(v);
                return false;
            }
        } else if (a == QLatin1String("--strict")) {
            o->strict = true;
        } else if (a == QLatin1String("--fix-loop")) {
            o->fixLoop = true;
        } else {
            *error = QStringLiteral("unknown argument '%1'").arg(a);
            return false;
        }
    }
    if (o->model.isEmpty() || o->capture.isEmpty() || o->output.isEmpty()) {
        *error = QStringLiteral("--model, --capture and -o are required");
        return false;
    }
    return true;
}

// The dynamic_shapes document to export with. A dimscope.dynamic_shapes file is used
// as is.
bool loadSpec(const Options &o, QJsonObject *spec, QString *error)
{
    if (o.constraints.isEmpty()) {
        *error = QStringLiteral("--constraints FILE is required for now (inferring the default constraints from the capture "
                                "needs the shapes module)");
        return false;
    }
    QFile f(o.constraints);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1: %2").arg(o.constraints, f.errorString());
        return false;
    }
    QJsonParseError perr;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &perr);
    if (!doc.isObject()) {
        *error = QStringLiteral("%1: not a JSON object (%2 at offset %3)").arg(o.constraints, perr.errorString()).arg(perr.offset);
        return false;
    }
    const QString format = doc.object().value(QLatin1String("format")).toString();
    if (format == QLatin1String("dimscope.dynamic_shapes")) {
        *spec = doc.object();
        return true;
    }
    *error = QStringLiteral("%1: format '%2' is not a dimscope.dynamic_shapes document").arg(o.constraints, format);
    return false;
}

int printOutcome(QTextStream &out, QTextStream &err, const ExportResult &r)
{
    if (!r.verification.isEmpty()) {
        out << "\nverification (* = example call):\n" << r.verificationTable();
    }
    if (r.ok) {
        out << "\nexported " << r.output << " (" << r.device << (r.strict ? ", strict" : ", non-strict")
            << "; model " << (r.modelReused ? "reused" : "loaded") << ")\n";
        for (const ProgramInput &in : r.inputs)
            out << "  " << in.name << " [" << in.shape.join(QStringLiteral(", ")) << "]\n";
        return 0;
    }
    err << "\nexport failed: " << r.failure.toText();
    return 1;
}

int run(const QStringList &args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    Options o;
    QString error;
    if (!parse(args, &o, &error)) {
        err << "dimscope-cli export: " << error << "\nusage: dimscope-cli export --model REF --capture FILE "
            << "[--constraints FILE] [--device cpu|cuda] [--call N] [--strict] [--fix-loop] -o OUT.pt2\n";
        return 2;
    }
    if (!QFileInfo(o.capture).isFile()) {
        err << "dimscope-cli export: " << o.capture << ": no such file\n";
        return 2;
    }
    QJsonObject spec;
    if (!loadSpec(o, &spec, &error)) {
        err << "dimscope-cli export: " << error << "\n";
        return 2;
    }
    ExportClient client;
    QObject::connect(&client, &ExportClient::progress, [&](int, const QString &stage, const QString &message, double) {
        out << "[" << stage << "] " << message << "\n";
        out.flush();
    });
    QObject::connect(&client, &ExportClient::logLine, [&](int, const QString &stream, const QString &text) {
        if (stream != QLatin1String("stderr") || !text.trimmed().isEmpty())
            err << "  " << stream << ": " << text << "\n";
    });
    out << "worker: " << client.runtime().commandLine() << " (" << client.runtime().sourceName() << ")\n";
    ExportRequest request;
    request.model = o.model;
    request.capture = o.capture;
    request.spec = spec;
    request.output = o.output;
    request.device = o.device;
    request.strict = o.strict;
    request.call = o.call;
    const int id = client.exportModel(request);
    client.waitForFinished(id);
    const ExportResult r = client.exportResultOf(id);
    const int rc = printOutcome(out, err, r);
    if (rc != 0 && o.fixLoop && r.failure.hasFixes())
        err << "--fix-loop needs a constraint set (dimscope.constraints) to apply the fixes to; "
               "with a dynamic_shapes file, apply them by hand\n";
    client.shutdown();
    return rc;
}

const CliRegistration registration({"export",
                                    "export --model REF --capture FILE [--constraints FILE] [--device cpu|cuda] [--call N] "
                                    "[--strict] [--fix-loop] -o OUT.pt2",
                                    "torch.export through the Python worker, then replay every captured call", &run});

} // namespace
