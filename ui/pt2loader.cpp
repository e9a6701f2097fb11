// SPDX-License-Identifier: GPL-3.0-or-later
#include "pt2loader.h"

#include "pt2/pt2reader.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <optional>

namespace dimscope {

namespace {
struct ReadResult {
    std::optional<Pt2Program> program;
    QString error;
};
} // namespace

Pt2Loader::Pt2Loader(QObject *parent) : QObject(parent) {}

Pt2Loader::~Pt2Loader() = default;

void Pt2Loader::cancel()
{
    ++m_generation;
    m_running = false;
}

void Pt2Loader::open(const QString &path)
{
    cancel();
    const int generation = m_generation;
    m_running = true;
    auto *watcher = new QFutureWatcher<ReadResult>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, path] {
        watcher->deleteLater();
        if (generation != m_generation)
            return; // superseded or cancelled
        m_running = false;
        const ReadResult r = watcher->result();
        if (r.program)
            emit opened(path, *r.program);
        else
            emit failed(path, r.error);
    });
    watcher->setFuture(QtConcurrent::run([path] {
        ReadResult r;
        r.program = Pt2Reader::open(path, &r.error);
        return r;
    }));
}

} // namespace dimscope
