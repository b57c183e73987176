// The ECharts the teaching demo loads (web/vendor/echarts/echarts.min.js, rebuilt by build.sh): the core with
// only the series, components and renderer that web/js draws with, as the global `echarts`.
import * as echarts from 'echarts/core';
import { BarChart, CustomChart, HeatmapChart, LineChart } from 'echarts/charts';
import {
    AriaComponent, DataZoomInsideComponent, DataZoomSliderComponent, GridComponent, LegendComponent,
    MarkAreaComponent, MarkLineComponent, TitleComponent, TooltipComponent, VisualMapContinuousComponent,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';

echarts.use([
    BarChart, CustomChart, HeatmapChart, LineChart,
    AriaComponent, DataZoomInsideComponent, DataZoomSliderComponent, GridComponent, LegendComponent,
    MarkAreaComponent, MarkLineComponent, TitleComponent, TooltipComponent, VisualMapContinuousComponent,
    CanvasRenderer,
]);

globalThis.echarts = echarts;
