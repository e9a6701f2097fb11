// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/tensorengine.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QMutex>
#include <QMutexLocker>
#include <QPluginLoader>
#include <QThread>
#include <QThreadPool>

#include <atomic>

namespace dimscope {

namespace {

// The plugin's file name and where the build tree puts it (core/torchengine).
const char *const kPluginFile = DIMSCOPE_TORCH_ENGINE_FILE;
const char *const kBuildTreePlugin = DIMSCOPE_TORCH_ENGINE_BUILD_PATH;

struct EngineState {
    QMutex mutex;
    bool tried = false;
    const TensorEngineInterface *engine = nullptr;
    QString error;
    std::atomic_bool loaded{false};
};

EngineState &state()
{
    static EngineState s;
    return s;
}

} // namespace

QStringList TensorEngine::candidatePaths()
{
    const QString file = QString::fromUtf8(kPluginFile);
    QStringList paths;
    if (QCoreApplication::instance()) {
        const QDir appDir(QCoreApplication::applicationDirPath());
        paths << QDir::cleanPath(appDir.filePath(QStringLiteral("../lib/dimscope/") + file))
              << appDir.filePath(file);
    }
    paths << QString::fromUtf8(kBuildTreePlugin);
    paths.removeDuplicates();
    return paths;
}

QString TensorEngine::pluginPath()
{
    const QString override = qEnvironmentVariable("DIMSCOPE_TORCH_ENGINE");
    if (!override.isEmpty())
        return override;
    const QStringList candidates = candidatePaths();
    for (const QString &path : candidates) {
        if (QFileInfo(path).isFile())
            return path;
    }
    return candidates.value(0);
}

const TensorEngineInterface *TensorEngine::loadFrom(const QString &path, QString *error)
{
    auto failed = [&](const QString &why) -> const TensorEngineInterface * {
        if (error)
            *error = QStringLiteral("the tensor engine (LibTorch) could not be loaded from %1: %2").arg(path, why);
        return nullptr;
    };
    if (!QFileInfo(path).isFile()) {
        const bool overridden = !qEnvironmentVariable("DIMSCOPE_TORCH_ENGINE").isEmpty();
        return failed(overridden ? QStringLiteral("no such file (set by DIMSCOPE_TORCH_ENGINE)")
                                 : QStringLiteral("no such file (searched %1; set DIMSCOPE_TORCH_ENGINE to the plugin's path)")
                                       .arg(candidatePaths().join(QStringLiteral(", "))));
    }
    QPluginLoader loader(path);
    QObject *instance = loader.instance(); // reads the plugin's metadata before loading it
    if (!instance)
        return failed(loader.errorString());
    const auto *engine = qobject_cast<TensorEngineInterface *>(instance);
    if (!engine) {
        return failed(QStringLiteral("it is a Qt plugin for %1, not %2")
                          .arg(loader.metaData().value(QStringLiteral("IID")).toString(), QStringLiteral(DIMSCOPE_TENSOR_ENGINE_IID)));
    }
    // The instance lives as long as the process; it takes no events, but it must not
    // belong to a pool thread that may end.
    if (QCoreApplication::instance() && instance->thread() != QCoreApplication::instance()->thread())
        instance->moveToThread(QCoreApplication::instance()->thread());
    return engine;
}

const TensorEngineInterface *TensorEngine::get(QString *error)
{
    EngineState &s = state();
    QMutexLocker lock(&s.mutex);
    if (!s.tried) {
        s.tried = true;
        s.engine = loadFrom(pluginPath(), &s.error);
        s.loaded = s.engine != nullptr;
    }
    if (!s.engine && error)
        *error = s.error;
    return s.engine;
}

bool TensorEngine::isLoaded() { return state().loaded.load(); }

void TensorEngine::preload()
{
    QThreadPool::globalInstance()->start([] { get(); });
}

} // namespace dimscope
