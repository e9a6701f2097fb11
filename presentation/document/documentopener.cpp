// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/documentopener.h"

#include "document/captureloader.h"
#include "document/exportresults.h"
#include "document/projectloader.h"
#include "document/projectdocument.h"
#include "document/pt2loader.h"
#include "settings/recentfiles.h"

#include "util/regularfile.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

#include <cerrno>

#include <sys/stat.h>
#include <unistd.h>

namespace dimscope {

namespace {

// Only a path that names nothing is "not there" (moved, renamed, deleted): lstat fails
// with ENOENT or ENOTDIR. A FIFO, a device, a folder, a symbolic link (even one that
// loops or points nowhere) or a file we may not read is there, and what is wrong with
// it is the reader's reason, not "was it moved?" (issue 26 item 11).
bool isMissing(const QString &path)
{
    struct stat st;
    return ::lstat(QFile::encodeName(path).constData(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR);
}

// Why `path` cannot be read as a file ("is a FIFO (named pipe), not a regular file",
// "no such file", "cannot open: Too many levels of symbolic links"); empty when it can.
QString whyUnreadable(const QString &path)
{
    QString why;
    const int fd = RegularFile::openDescriptor(path, &why);
    if (fd >= 0)
        ::close(fd);
    return why;
}

void addRecentFile(const QString &path)
{
    QSettings settings;
    RecentFiles(settings).add(path);
}

} // namespace

DocumentOpener::DocumentOpener(ProjectDocument *document, QObject *parent)
    : QObject(parent), m_document(document), m_loader(new CaptureLoader(this)), m_projectLoader(new ProjectLoader(this)),
      m_pt2Loader(new Pt2Loader(this))
{
    connect(m_pt2Loader, &Pt2Loader::opened, this, &DocumentOpener::onPt2Read);
    connect(m_pt2Loader, &Pt2Loader::failed, this, &DocumentOpener::finishFailed);
    connect(m_projectLoader, &ProjectLoader::projectRead, this, &DocumentOpener::continueProject);
    connect(m_projectLoader, &ProjectLoader::failed, this, &DocumentOpener::finishFailed);
    connect(m_loader, &CaptureLoader::loaded, this, &DocumentOpener::onLoaded);
    connect(m_loader, &CaptureLoader::failed, this, &DocumentOpener::finishFailed);
    connect(m_loader, &CaptureLoader::progress, this, &DocumentOpener::progress);
}

bool DocumentOpener::isOpening() const
{
    return m_loader->isRunning() || m_projectLoader->isRunning() || m_pt2Loader->isRunning();
}

bool DocumentOpener::open(const QString &path) { return openProject(path, QString()); }

bool DocumentOpener::openProject(const QString &path, const QString &relocatedCapture)
{
    const QFileInfo info(path);
    // Refused with what it is (a FIFO, a folder), before the user is asked to save.
    const QString unreadable = whyUnreadable(path);
    if (!unreadable.isEmpty()) {
        finishFailed(path, unreadable);
        return false;
    }
    if (info.suffix().compare(QLatin1String("dimscope"), Qt::CaseInsensitive) == 0) {
        // Read off the GUI thread (a project holds up to 256 MB of constraints); the
        // open goes on in continueProject.
        m_relocatedCapture = relocatedCapture;
        m_projectLoader->read(path);
        return true;
    }
    if (m_mayReplace && !m_mayReplace())
        return false;
    if (info.suffix().compare(QLatin1String("pt2"), Qt::CaseInsensitive) == 0) {
        openPt2(info.absoluteFilePath());
        return true;
    }
    m_projectLoader->cancel();
    m_project.reset();
    beginOpening(info.absoluteFilePath(), false);
    m_loader->start(path, [file = m_capturePath](QString *error) { return CaptureAnalysis::open(file, error); });
    return true;
}

void DocumentOpener::continueProject(const QString &path, ProjectFile file)
{
    const QFileInfo info(path);
    const QString savedCapturePath = file.capturePath;
    if (!m_relocatedCapture.isEmpty())
        file.capturePath = QFileInfo(m_relocatedCapture).absoluteFilePath();
    const QString capturePath = file.capturePath;
    if (isMissing(capturePath)) {
        const QString error = tr("its capture %1 does not exist").arg(QDir::toNativeSeparators(capturePath));
        finishFailed(path, error);
        emit captureMissing(info.absoluteFilePath(), capturePath);
        return;
    }
    const QString unreadable = whyUnreadable(capturePath);
    if (!unreadable.isEmpty()) {
        finishFailed(path, tr("its capture %1: %2").arg(QDir::toNativeSeparators(capturePath), unreadable));
        return;
    }
    if (m_mayReplace && !m_mayReplace())
        return;
    m_project = PendingProject{info.absoluteFilePath(), std::move(file), savedCapturePath};
    beginOpening(QFileInfo(capturePath).absoluteFilePath(), false);
    m_loader->start(path, [file = m_capturePath](QString *error) { return CaptureAnalysis::open(file, error); });
}

void DocumentOpener::openCapture(const Capture &capture, const QString &label)
{
    m_projectLoader->cancel();
    m_project.reset();
    beginOpening(label, true);
    m_loader->start(label, [capture](QString *) { return std::optional<CaptureAnalysis>(CaptureAnalysis::of(capture)); });
}

void DocumentOpener::beginOpening(const QString &capturePath, bool inMemory)
{
    m_pt2Loader->cancel();
    m_capturePath = capturePath;
    m_inMemory = inMemory;
    m_document->setLoading(true);
}

// An exported program is a document of its own: the open one goes now (the user was
// asked about unsaved edits), the program is read off the GUI thread.
void DocumentOpener::openPt2(const QString &path)
{
    cancel();
    m_document->clear();
    emit progress(path, 0, 0);
    m_pt2Loader->open(path);
}

void DocumentOpener::onPt2Read(const QString &path, const QVector<Pt2Program> &programs)
{
    m_document->exportResults()->setOpenedPrograms(path, programs);
    addRecentFile(path);
    emit opened(path);
}

void DocumentOpener::cancel()
{
    m_pt2Loader->cancel();
    m_projectLoader->cancel();
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
    if (!recent.isEmpty())
        addRecentFile(recent);
    emit opened(label);
}

void DocumentOpener::finishFailed(const QString &label, const QString &error)
{
    m_project.reset();
    m_document->setLoading(false);
    emit failed(label, error);
}

} // namespace dimscope
