#include "plotpanel.h"

#include "settingskeys.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QToolButton>
#include <QVBoxLayout>

namespace dimscope {

PlotPanel::PlotPanel(QWidget *parent) : QWidget(parent), m_dimBox(new QComboBox(this)), m_plot(new QCustomPlot(this))
{
    setObjectName(QStringLiteral("plotPanel"));
    m_dimBox->setObjectName(QStringLiteral("plotDimension"));
    m_dimBox->setToolTip(tr("Dimension of the selected leaf to plot"));
    connect(m_dimBox, qOverload<int>(&QComboBox::activated), this, &PlotPanel::showDimension);
    auto *save = new QToolButton(this);
    save->setObjectName(QStringLiteral("plotSave"));
    save->setText(tr("Save…"));
    save->setToolTip(tr("Save the plot as PNG or PDF"));
    connect(save, &QToolButton::clicked, this, &PlotPanel::saveInteractively);
    auto *reset = new QToolButton(this);
    reset->setText(tr("Reset view"));
    connect(reset, &QToolButton::clicked, this, [this] {
        m_plot->rescaleAxes();
        replot();
    });

    m_plot->setObjectName(QStringLiteral("plot"));
    m_plot->setInteractions(QCP::iRangeZoom | QCP::iRangeDrag | QCP::iSelectPlottables);
    m_plot->setMinimumHeight(140);
    m_plot->xAxis->setLabel(tr("call"));
    m_plot->yAxis->setLabel(tr("size"));
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_plot->xAxis->setTicker(ticker);
    QCPGraph *graph = m_plot->addGraph();
    graph->setLineStyle(QCPGraph::lsLine);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 7));
    applyPalette();

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(new QLabel(tr("Dimension:"), this));
    bar->addWidget(m_dimBox, 1);
    bar->addWidget(reset);
    bar->addWidget(save);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(m_plot, 1);
}

PlotPanel::~PlotPanel() = default;

void PlotPanel::setLoaded(const LoadedCapturePtr &loaded)
{
    m_loaded = loaded;
    showNode(-1);
}

void PlotPanel::showNode(int node)
{
    m_node = node;
    m_dimBox->clear();
    const bool valid = m_loaded && node > 0 && node < m_loaded->tree.nodes().size()
                       && m_loaded->tree.node(node).kind == NodeKind::Tensor;
    int first = -1;
    if (valid) {
        const ShapeSummary &shape = m_loaded->shapes.at(node);
        for (int d = 0; d < shape.rank(); ++d) {
            m_dimBox->addItem(tr("dim %1: %2").arg(d).arg(shape.parts.at(d)));
            if (first < 0 && shape.dynamic.at(d))
                first = d;
        }
        if (first < 0 && shape.rank() > 0)
            first = 0;
    }
    m_dimBox->setEnabled(m_dimBox->count() > 0);
    showDimension(first);
}

void PlotPanel::showDimension(int dim)
{
    m_dim = dim;
    m_points.clear();
    if (m_loaded && m_node > 0 && dim >= 0) {
        m_dimBox->setCurrentIndex(dim);
        const AlignedNode &n = m_loaded->tree.node(m_node);
        for (int c = 0; c < m_loaded->tree.callCount(); ++c) {
            const Leaf *leaf = AlignedTree::leafIn(m_loaded->capture, n, c);
            if (leaf && leaf->isTensor() && dim < leaf->shape.size())
                m_points.append(QPointF(c, double(leaf->shape.at(dim))));
        }
        m_plot->graph(0)->setName(QStringLiteral("%1 dim %2").arg(n.path).arg(dim));
    }
    QVector<double> x, y;
    for (const QPointF &p : std::as_const(m_points)) {
        x.append(p.x());
        y.append(p.y());
    }
    m_plot->graph(0)->setData(x, y, true);
    m_plot->rescaleAxes();
    // Constant values would collapse the axis to a line; give them room.
    const QCPRange yr = m_plot->yAxis->range();
    m_plot->yAxis->setRange(qMin(0.0, yr.lower), yr.upper + qMax(1.0, yr.size() * 0.1));
    const QCPRange xr = m_plot->xAxis->range();
    m_plot->xAxis->setRange(xr.lower - 0.5, xr.upper + 0.5);
    replot();
}

bool PlotPanel::saveTo(const QString &path)
{
    if (path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive))
        return m_plot->savePng(path);
    if (path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive))
        return m_plot->savePdf(path);
    return false;
}

void PlotPanel::saveInteractively()
{
    QSettings settings;
    const QString folder = settings.value(settings::LastPlotFolder).toString();
    QString path = QFileDialog::getSaveFileName(this, tr("Save plot"), folder, tr("PNG image (*.png);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    if (!path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive) && !path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive))
        path += QStringLiteral(".png");
    settings.setValue(settings::LastPlotFolder, QFileInfo(path).absolutePath());
    saveTo(path);
}

void PlotPanel::replot() { m_plot->replot(QCustomPlot::rpQueuedReplot); }

void PlotPanel::applyPalette()
{
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    const QColor grid = pal.color(QPalette::Mid);
    m_plot->setBackground(pal.color(QPalette::Base));
    for (QCPAxis *axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 0, Qt::DotLine));
    }
    m_plot->graph(0)->setPen(QPen(pal.color(QPalette::Highlight), 2));
    replot();
}

void PlotPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

} // namespace dimscope
