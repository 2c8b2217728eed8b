import { render } from 'preact';
import { SharePage } from './share-page.js';
import '../styles.css';

render(<SharePage />, document.getElementById('share')!);
