// SPDX-License-Identifier: GPL-3.0-or-later
// qcustomplot.h uses foreach in its templates: this source and plotpanel.cpp, the two
// that include it, compile with foreach; every other has QT_NO_FOREACH (dimscope_strict_qt).
#undef QT_NO_FOREACH
#include "plotexporter.h"

#include "util/atomicfile.h"

#include <qcustomplot.h>

#include <QBuffer>
#include <QDir>
#include <QImageWriter>
#include <QPdfWriter>

namespace dimscope {

namespace {
QString tr(const char *text) { return QCoreApplication::translate("dimscope::PlotPanel", text); }

bool isPdf(const QString &path) { return path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive); }

// The title as a text element in a new first row of the plot's layout, for as long as
// the file is written; the panel shows its title above the plot instead.
class TitleRow
{
public:
    TitleRow(QCustomPlot *plot, const QString &title) : m_plot(plot)
    {
        QFont font = plot->font();
        font.setBold(true);
        m_element = new QCPTextElement(plot, title, font);
        m_element->setTextColor(plot->xAxis->labelColor());
        plot->plotLayout()->insertRow(0);
        plot->plotLayout()->addElement(0, 0, m_element);
    }
    ~TitleRow()
    {
        m_plot->plotLayout()->remove(m_element); // deletes it
        m_plot->plotLayout()->simplify();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
    TitleRow(const TitleRow &) = delete;
    TitleRow &operator=(const TitleRow &) = delete;

private:
    QCustomPlot *m_plot;
    QCPTextElement *m_element;
};

QString writePng(QCustomPlot *plot, QIODevice *device, const QString &title)
{
    const QImage image = plot->toPixmap(plot->width(), plot->height()).toImage();
    QImageWriter writer(device, "png");
    writer.setText(QStringLiteral("Title"), title);
    writer.setText(QStringLiteral("Software"), QStringLiteral("dimscope"));
    return writer.write(image) ? QString() : writer.errorString();
}

QString writePdf(QCustomPlot *plot, QIODevice *device, const QString &title)
{
    const QSize size(plot->width(), plot->height());
    QPdfWriter writer(device);
    writer.setTitle(title);
    writer.setCreator(QStringLiteral("dimscope"));
    writer.setPageLayout(QPageLayout(QPageSize(QSizeF(size), QPageSize::Point, QString(), QPageSize::ExactMatch),
                                     QPageLayout::Portrait, QMarginsF()));
    QCPPainter painter;
    if (!painter.begin(&writer))
        return tr("the PDF writer could not start");
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    // One plot pixel per point: the page is exactly the plot's size.
    painter.setWindow(QRect(QPoint(0, 0), size));
    plot->toPainter(&painter, size.width(), size.height());
    painter.end();
    return QString();
}
} // namespace

bool PlotExporter::isSupported(const QString &path)
{
    return isPdf(path) || path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive);
}

QString PlotExporter::write(QCustomPlot *plot, const QString &path, const QString &title)
{
    const QString shown = QDir::toNativeSeparators(path);
    if (!isSupported(path))
        return tr("Cannot save %1: the file name must end in .png or .pdf").arg(shown);
    // The image is made in memory and saved as one write: the image writers stream to
    // a device themselves, and AtomicFile checks that every byte reached the disk.
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QString problem;
    {
        const TitleRow titleRow(plot, title);
        problem = isPdf(path) ? writePdf(plot, &buffer, title) : writePng(plot, &buffer, title);
    }
    buffer.close();
    if (problem.isEmpty())
        AtomicFile::write(path, bytes, &problem);
    return problem.isEmpty() ? QString() : tr("Cannot save %1: %2").arg(shown, problem);
}

} // namespace dimscope
