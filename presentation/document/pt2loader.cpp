// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/pt2loader.h"

#include "pt2/pt2reader.h"

#include <QVector>

namespace dimscope {

namespace {
struct ReadResult {
    QVector<Pt2Program> programs;
    QString error;
};
} // namespace

Pt2Loader::Pt2Loader(QObject *parent) : QObject(parent) {}

Pt2Loader::~Pt2Loader() = default;

void Pt2Loader::cancel()
{
    m_job.cancel();
}

void Pt2Loader::open(const QString &path)
{
    m_job.start(
        [path](const LatestJob::Control &) {
            ReadResult r;
            r.programs = Pt2Reader::openAll(path, &r.error);
            return r;
        },
        [this, path](const ReadResult &r) {
            if (!r.programs.isEmpty())
                emit opened(path, r.programs);
            else
                emit failed(path, r.error);
        });
}

} // namespace dimscope
