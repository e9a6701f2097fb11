// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/pt2loader.h"

#include "pt2/pt2reader.h"

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
    m_job.cancel();
}

void Pt2Loader::open(const QString &path)
{
    m_job.start(
        [path](const LatestJob::Control &) {
            ReadResult r;
            r.program = Pt2Reader::open(path, &r.error);
            return r;
        },
        [this, path](const ReadResult &r) {
            if (r.program)
                emit opened(path, *r.program);
            else
                emit failed(path, r.error);
        });
}

} // namespace dimscope
