// SPDX-License-Identifier: GPL-3.0-or-later
#include "documentopener.h"

#include "captureloader.h"
#include "projectdocument.h"
#include "recentfiles.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace dimscope {

DocumentOpener::DocumentOpener(ProjectDocument *document, QObject *parent)
    : QObject(parent), m_document(document), m_loader(new CaptureLoader(this))
{
    connect(m_loader, &CaptureLoader::loaded, this, &DocumentOpener::onLoaded);
    connect(m_loader, &CaptureLoader::failed, this, &DocumentOpener::finishFailed);
    connect(m_loader, &CaptureLoader::progress, this, &DocumentOpener::progress);
}

bool DocumentOpener::isOpening() const { return m_loader->isRunning(); }

bool DocumentOpener::open(const QString &path) { return openProject(path, QString()); }

bool DocumentOpener::openProject(const QString &path, const QString &relocatedCapture)
{
    const QFileInfo info(path);
    if (!info.isFile()) {
        finishFailed(path, tr("no such file"));
        return false;
    }
    std::optional<PendingProject> project;
    QString capturePath = path;
    if (info.suffix().compare(QLatin1String("dimscope"), Qt::CaseInsensitive) == 0) {
        QString error;
        std::optional<ProjectFile> file = ProjectFile::read(path, &error);
        if (!file) {
            finishFailed(path, error);
            return false;
        }
        const QString savedCapturePath = file->capturePath;
        if (!relocatedCapture.isEmpty())
            file->capturePath = QFileInfo(relocatedCapture).absoluteFilePath();
        capturePath = file->capturePath;
        if (!QFileInfo(capturePath).isFile()) {
            const QString error = tr("its capture %1 does not exist").arg(QDir::toNativeSeparators(capturePath));
            finishFailed(path, error);
            emit captureMissing(info.absoluteFilePath(), capturePath);
            return false;
        }
        project = PendingProject{info.absoluteFilePath(), std::move(*file), savedCapturePath};
    }
    if (m_mayReplace && !m_mayReplace())
        return false;
    m_project = std::move(project);
    beginOpening(QFileInfo(capturePath).absoluteFilePath(), false);
    m_loader->start(path, [file = m_capturePath](QString *error) { return CaptureAnalysis::open(file, error); });
    return true;
}

void DocumentOpener::openCapture(const Capture &capture, const QString &label)
{
    m_project.reset();
    beginOpening(label, true);
    m_loader->start(label, [capture](QString *) { return std::optional<CaptureAnalysis>(CaptureAnalysis::of(capture)); });
}

void DocumentOpener::beginOpening(const QString &capturePath, bool inMemory)
{
    m_capturePath = capturePath;
    m_inMemory = inMemory;
    m_document->setLoading(true);
}

void DocumentOpener::cancel()
{
    m_loader->cancel();
    m_project.reset();
    m_document->setLoading(false);
}

void DocumentOpener::onLoaded(const QString &label, const LoadedCapturePtr &loaded)
{
    if (m_project) {
        m_document->openProject(m_project->path, m_project->file, loaded);
        if (m_project->isRelocated())
            m_document->setSavedCapturePath(m_project->savedCapturePath);
    } else {
        m_document->setLoaded(m_capturePath, loaded);
    }
    const QString recent = m_project ? m_project->path : m_inMemory ? QString() : m_capturePath;
    m_project.reset();
    if (!recent.isEmpty()) {
        QSettings settings;
        RecentFiles(settings).add(recent);
    }
    emit opened(label);
}

void DocumentOpener::finishFailed(const QString &label, const QString &error)
{
    m_project.reset();
    m_document->setLoading(false);
    emit failed(label, error);
}

} // namespace dimscope
