// SPDX-License-Identifier: GPL-3.0-or-later
#include "welcomepage.h"

#include "appfiles.h"
#include "settings/recentfiles.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

#include <algorithm>

namespace dimscope {

namespace {

QLabel *heading(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    QFont font = label->font();
    font.setBold(true);
    font.setPointSizeF(font.pointSizeF() * 1.2);
    label->setFont(font);
    return label;
}

QPushButton *button(const QString &objectName, const QString &text, QWidget *parent)
{
    auto *b = new QPushButton(text, parent);
    b->setObjectName(objectName);
    return b;
}

// "~/runs/llama" rather than "/home/me/runs/llama": the folder tells captures of the
// same name apart, the home prefix adds nothing.
QString shortFolder(const QString &path)
{
    QString folder = QDir::toNativeSeparators(QFileInfo(path).absolutePath());
    const QString home = QDir::toNativeSeparators(QDir::homePath());
    if (home.size() > 1 && folder.startsWith(home))
        folder = QLatin1Char('~') + folder.mid(home.size());
    return folder;
}

} // namespace

WelcomePage::WelcomePage(QWidget *parent)
    : QWidget(parent), m_recent(new QListWidget(this)), m_noRecent(new QLabel(this)), m_snippet(new QPlainTextEdit(this)),
      m_demo(nullptr)
{
    setObjectName(QStringLiteral("welcomePage"));
    auto *title = heading(tr("dimscope"), this);
    QFont big = title->font();
    big.setPointSizeF(big.pointSizeF() * 1.6);
    title->setFont(big);
    auto *tagline = new QLabel(tr("See and shape the <code>dynamic_shapes</code> of a PyTorch model for "
                                  "<code>torch.export</code>, from a few recorded calls."),
                               this);
    tagline->setWordWrap(true);
    auto *columns = new QHBoxLayout;
    columns->setSpacing(32);
    columns->addWidget(createOpenColumn(), 1);
    columns->addWidget(createRecordColumn(), 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(32, 24, 32, 24);
    layout->addWidget(title);
    layout->addWidget(tagline);
    layout->addSpacing(16);
    layout->addLayout(columns, 1);
    // The recent files are read when the page is shown (showEvent), not here as well:
    // each read checks every file on disk, and the page is shown once at start-up.
}

QWidget *WelcomePage::createOpenColumn()
{
    auto *column = new QWidget(this);
    m_demo = button(QStringLiteral("welcomeOpenDemo"), tr("Open the Demo"), column);
    m_demo->setToolTip(tr("A tiny decoder LM's capture with a KV cache, its constraints and model"));
    connect(m_demo, &QPushButton::clicked, this, [this] { emit openFileRequested(AppFiles::demoProject()); });
    auto *open = button(QStringLiteral("welcomeOpen"), tr("Open Capture, Project or .pt2…"), column);
    connect(open, &QPushButton::clicked, this, &WelcomePage::openDialogRequested);
    auto *openProject = button(QStringLiteral("welcomeOpenProject"), tr("Open Project…"), column);
    connect(openProject, &QPushButton::clicked, this, &WelcomePage::openProjectDialogRequested);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(open);
    buttons->addWidget(openProject);
    buttons->addWidget(m_demo);
    buttons->addStretch(1);

    m_recent->setObjectName(QStringLiteral("welcomeRecent"));
    m_recent->setAlternatingRowColors(true);
    m_recent->setToolTip(tr("Double-click or press Enter to open"));
    connect(m_recent, &QListWidget::itemActivated, this,
            [this](QListWidgetItem *item) { emit openFileRequested(item->data(Qt::UserRole).toString()); });
    m_noRecent->setObjectName(QStringLiteral("welcomeNoRecent"));
    m_noRecent->setText(tr("Files you open are listed here."));
    m_noRecent->setEnabled(false);

    auto *layout = new QVBoxLayout(column);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(heading(tr("Open"), column));
    layout->addLayout(buttons);
    layout->addSpacing(12);
    layout->addWidget(heading(tr("Recent"), column));
    layout->addWidget(m_noRecent);
    layout->addWidget(m_recent, 1);
    layout->addStretch(0); // takes the height while there is no recent file (the list hidden)
    return column;
}

QWidget *WelcomePage::createRecordColumn()
{
    auto *column = new QWidget(this);
    auto *record = button(QStringLiteral("welcomeNewRecording"), tr("New Recording…"), column);
    record->setToolTip(tr("A Hugging Face model folder and a few prompts in, a capture and a project out: "
                          "generate() runs in the export worker"));
    connect(record, &QPushButton::clicked, this, &WelcomePage::newRecordingRequested);
    auto *fromFolder = new QLabel(tr("From a Hugging Face model folder (or a factory) and a few prompts, without "
                                     "writing Python. Or record in your own code:"),
                                  column);
    fromFolder->setWordWrap(true);
    auto *intro = new QLabel(tr("Record a few real calls of your model into one file, in the Python environment "
                                "of the model (<code>pip install path/to/dimscope/python</code>), then open it here:"),
                             column);
    intro->setWordWrap(true);
    m_snippet->setObjectName(QStringLiteral("welcomeRecordSnippet"));
    m_snippet->setReadOnly(true);
    m_snippet->setPlainText(recordingSnippet());
    m_snippet->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_snippet->setLineWrapMode(QPlainTextEdit::NoWrap);
    // Wide enough for its longest line: a snippet to copy should be read whole.
    int widest = 0;
    for (const QString &line : recordingSnippet().split(QLatin1Char('\n')))
        widest = std::max(widest, m_snippet->fontMetrics().horizontalAdvance(line));
    const int margins = 2 * m_snippet->frameWidth() + 2 * int(m_snippet->document()->documentMargin()) + 8;
    m_snippet->setMinimumWidth(widest + margins);
    m_snippet->setFixedHeight(int(recordingSnippet().count(QLatin1Char('\n')) + 1) * m_snippet->fontMetrics().lineSpacing() + margins);
    auto *copy = button(QStringLiteral("welcomeCopySnippet"), tr("Copy"), column);
    connect(copy, &QPushButton::clicked, this, [] { QApplication::clipboard()->setText(recordingSnippet()); });
    auto *after = new QLabel(tr("The tree then shows every input leaf, cache layers included, with the dims that "
                                "changed between calls grouped into named Dims. Export on CPU or CUDA replays "
                                "every recorded call through the exported program."),
                             column);
    after->setWordWrap(true);
    auto *layout = new QVBoxLayout(column);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(heading(tr("Record a capture"), column));
    layout->addWidget(record, 0, Qt::AlignLeft);
    layout->addWidget(fromFolder);
    layout->addWidget(intro);
    layout->addWidget(m_snippet);
    layout->addWidget(copy, 0, Qt::AlignLeft);
    layout->addWidget(after);
    layout->addStretch(1);
    return column;
}

QString WelcomePage::recordingSnippet()
{
    return QStringLiteral("from dimscope.capture import InputRecorder\n"
                          "\n"
                          "rec = InputRecorder(store_n_calls=8)\n"
                          "with rec(model):\n"
                          "    model.generate(**inputs, max_new_tokens=4)\n"
                          "rec.save(\"capture.safetensors\")\n");
}

void WelcomePage::refresh()
{
    QSettings settings;
    const QStringList files = RecentFiles(settings).files();
    m_recent->clear();
    for (const QString &path : files) {
        auto *item = new QListWidgetItem(QStringLiteral("%1 — %2").arg(QFileInfo(path).fileName(), shortFolder(path)), m_recent);
        item->setData(Qt::UserRole, path);
        item->setToolTip(QDir::toNativeSeparators(path));
    }
    m_recent->setVisible(!files.isEmpty());
    m_noRecent->setVisible(files.isEmpty());
    if (!files.isEmpty())
        m_recent->setCurrentRow(0);
    m_demo->setEnabled(!AppFiles::demoProject().isEmpty());
    if (!m_demo->isEnabled())
        m_demo->setToolTip(tr("The demo is not installed next to this dimscope."));
}

// On every show: at start-up, and on coming back after a document closes, when the
// files opened meanwhile are listed.
void WelcomePage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refresh();
}

} // namespace dimscope
