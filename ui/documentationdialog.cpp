// SPDX-License-Identifier: GPL-3.0-or-later
#include "documentationdialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFile>
#include <QHBoxLayout>
#include <QListWidget>
#include <QSplitter>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace dimscope {

namespace {

// A page's title: its first "# " heading, else its file name.
QString pageTitle(const QString &path)
{
    QFile file(path);
    if (file.open(QIODevice::ReadOnly | QIODevice::Text)) {
        for (int i = 0; i < 20 && !file.atEnd(); ++i) {
            const QString line = QString::fromUtf8(file.readLine()).trimmed();
            if (line.startsWith(QLatin1String("# ")))
                return line.mid(2).trimmed();
        }
    }
    return QFileInfo(path).completeBaseName();
}

} // namespace

DocumentationDialog::DocumentationDialog(const QString &folder, QWidget *parent)
    : QDialog(parent), m_pages(new QListWidget(this)), m_browser(new QTextBrowser(this))
{
    setObjectName(QStringLiteral("documentationDialog"));
    setWindowTitle(tr("dimscope Documentation"));
    m_pages->setObjectName(QStringLiteral("documentationPages"));
    m_browser->setObjectName(QStringLiteral("documentationBrowser"));
    m_browser->setOpenExternalLinks(true);
    auto *splitter = new QSplitter(this);
    splitter->addWidget(m_pages);
    splitter->addWidget(m_browser);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({220, 680});
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(splitter, 1);
    layout->addWidget(buttons);
    resize(960, 680);
    listPages(folder);
}

void DocumentationDialog::listPages(const QString &folder)
{
    const QDir dir(folder);
    const QStringList files =
        folder.isEmpty() ? QStringList() : dir.entryList({QStringLiteral("*.md")}, QDir::Files, QDir::Name);
    if (files.isEmpty()) {
        m_pages->hide();
        m_browser->setPlainText(tr("The documentation is not installed next to this dimscope. It is the docs/ folder "
                                   "of dimscope's source tree."));
        return;
    }
    m_browser->setSearchPaths({folder});
    for (const QString &f : files) {
        auto *item = new QListWidgetItem(pageTitle(dir.filePath(f)), m_pages);
        item->setData(Qt::UserRole, dir.filePath(f));
        item->setToolTip(f);
    }
    connect(m_pages, &QListWidget::currentItemChanged, this, [this](QListWidgetItem *item) {
        if (item)
            m_browser->setSource(QUrl::fromLocalFile(item->data(Qt::UserRole).toString()), QTextDocument::MarkdownResource);
    });
    m_pages->setCurrentRow(0);
}

bool DocumentationDialog::showPage(const QString &fileName)
{
    for (int i = 0; i < m_pages->count(); ++i) {
        if (QFileInfo(m_pages->item(i)->data(Qt::UserRole).toString()).fileName() == fileName) {
            m_pages->setCurrentRow(i);
            return true;
        }
    }
    return false;
}

} // namespace dimscope
